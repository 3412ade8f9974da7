"""The running score of the per-round record (`sample_ip`, the tension metrics' input) is the
score as it would stand if the game ended then, the final affiliation of the Allies in hand
included (issue 49). Left out, a seat holding Allies reads behind all game and gains them back
at the end, which the lead-growth verdict reads as catching up (the planted case:
tests/core/test_tension_report.py). The kernel records what the reference engine records
(tests/abyss/test_parity.py, `test_reference_game_records_the_kernels_trajectory`)."""

from __future__ import annotations

import pytest
from abyss_helpers import Race, give_allies, lev_tables, new_game, tables

from games.abyss.engine.rules.game import Game
from games.abyss.strategies import REGISTRY


def test_allies_in_hand_count_as_the_final_affiliation_scores_them() -> None:
    g = new_game(3)
    give_allies(g, 0, (Race.SQUID, 4), affiliated=True)
    give_allies(g, 0, (Race.SQUID, 5), (Race.SQUID, 2), (Race.CRAB, 3), (Race.CRAB, 1))
    p = g.players[0]
    hand, row = list(p.hand), list(p.affiliated)
    running = g.score_if_ended(p)
    # the final affiliation takes Squid 2 and Crab 1; the strongest of each race scores: 4 + 1
    assert running.allies == 5
    assert (p.hand, p.affiliated) == (hand, row)  # the Allies stay in hand
    g.final_scoring()
    assert g.scores[0] == running


@pytest.mark.parametrize(("leviathan", "lineup"), [
    (False, ["greedy", "random", "greedy", "random"]),
    (True, ["pearl_economist", "leviathan_hunter", "cautious_explorer", "farmer"]),
])  # fmt: skip
def test_the_last_turns_running_score_is_the_final_score(leviathan, lineup) -> None:
    """Nothing happens after the game's last turn but the final affiliation, so the running
    score its seat recorded is its final score (before issue 49 it left out the Allies in hand:
    lower in most games)."""
    t = lev_tables() if leviathan else tables()
    for game in range(12):
        g = Game(t, REGISTRY.make_policies(lineup, len(lineup)), seed=5, game=game,
                 record=False, trajectory=True).play()  # fmt: skip
        last = g.trajectory[(g.turn - 1) // g.n_players, g.active]
        assert last[0] == g.scores[g.active].total, game
