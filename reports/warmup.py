"""`python -m reports.warmup GAME`: compile GAME's fast path into numba's cache, then exit.

Started detached by a first run that plays on the reference engine while the fast path is not
compiled yet (`cli.commands.common.cold_start_engine`), so that later runs start at once. Only
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


if __name__ == "__main__":
    warm_up(sys.argv[1])
