"""Game-independent machinery: errors, run directories, the results schema.

Keep this package light to import: the CLI imports `sim.core.errors` at start-up, so nothing here
may import numpy, pandas or numba at module level except the modules that need them
(`schema.py`).
"""
