"""Analyses, statistics, charts, reports and the life of a run directory (`reports.run`), for
every game through its spec; the command line that calls them is the `cli` package.

Nothing is imported here: ``import cli.app`` must stay free of numpy, pandas and numba.
"""
