"""The games, one package each: `games/<game>/__init__.py` holds its spec (`SPEC`, registered in
`sim.games`), `engine/` its rules and compiled kernels, `strategies/` its players and presets,
`report/` what its reports add, and `commands/` any command of its own."""
