"""The `abyss-mc` commands, one module each (thin: parse, call the library, print); what they
share is in `common`. No command imports another (tests/core/test_imports.py)."""
