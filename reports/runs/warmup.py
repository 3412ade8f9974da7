"""`python -m reports.runs.warmup GAME`: compile GAME's fast path into numba's cache, then exit;
`python -m reports.runs.warmup --part LABEL MODULE:FUNCTION`: compile one part of a command
(`sim.core.firstrun.compile_part_in_background`).

Started detached by a first run that plays on the reference engine while the fast path is not
compiled yet (`reports.runs.setup.cold_start_engine`), so that later runs start at once. Only
one such compile runs per cache (`sim.core.firstrun.compile_lock`); a second one exits at once.
"""

from __future__ import annotations

import sys


def warm_up(game: str) -> bool:
    """Compile `game`'s fast path by playing one game of its default line-up on it; False when
    another process is compiling it or it is compiled already."""
    from sim import games
    from sim.core.firstrun import compile_lock, is_compiled

    spec = games.get(game)
    play = spec.play()
    with compile_lock(spec.name) as mine:
        if not mine or is_compiled(spec.name):
            return False
        tables = spec.load_cards()
        lineup = spec.default_strategies.split(",")
        players = max(min(play.player_counts(tables, ())), len(lineup))
        policies = spec.strategies().make_policies(lineup, players)
        # the play module announces the compile (to nobody: stderr is closed) and marks it done
        play.run_games(tables, engine="fast", n_players=players, n_games=1, seed=0,
                       policies=policies, per_game=True)  # fmt: skip
        return True


def warm_part(label: str, target: str) -> bool:
    """Compile one part of a command (`target`: "module:function", which plays a little of it
    under `first_compile(label)`) unless another process compiles it or it is compiled; the
    lock is held while it compiles, so that the command waits for it
    (`sim.core.firstrun.wait_for_background`)."""
    from importlib import import_module

    from sim.core.firstrun import compile_lock, is_compiled

    with compile_lock(label) as mine:
        if not mine or is_compiled(label):
            return False
        module, function = target.split(":")
        getattr(import_module(module), function)()
        return True


def lower_priority() -> None:
    """Nobody waits for this compile: the command that started it plays first (its reference
    games, on every core: `games.abyss.engine.runner.play_reference`). Started in a session of
    its own, it is its own scheduling group where Linux groups by session (autogroup), and a
    process's nice value weighs only within its group: the group's is lowered too. Where
    neither can be changed, it runs as it is."""
    import os
    from pathlib import Path

    try:
        os.nice(10)
        Path("/proc/self/autogroup").write_text("10")
    except (OSError, AttributeError):  # (no os.nice on Windows; no autogroup off Linux)
        pass


if __name__ == "__main__":
    if sys.argv[1] == "--part":
        warm_part(sys.argv[2], sys.argv[3])
    else:
        lower_priority()
        warm_up(sys.argv[1])
