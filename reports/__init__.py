"""Analyses, statistics, charts and the ``abyss-mc`` command line (`reports.cli`).

Nothing is imported here: ``import reports.cli`` must stay free of numpy, pandas and numba.
"""
