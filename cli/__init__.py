"""The ``abyss-mc`` command line: the typer application (`cli.app`), the console script
(`cli.entry`) and one module per command (`cli.commands`), each parsing its flags into its
options and calling the Python API (`abyss_mc.run`). Nothing imports this package but the console
script and a game's own commands: the analyses live in `reports`, the engines in `sim`.

Nothing is imported here: ``abyss-mc --help`` must stay free of numpy, pandas and numba.
"""
