"""The readable reference engine: the rules as written, with a full event log."""
