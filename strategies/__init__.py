"""Heuristic policies per game (numba functions over a parameter vector) and named presets in TOML.

The same policy code serves the reference engine and the kernel. See docs/ and the per-game
subpackages (``strategies.abyss``).
"""
