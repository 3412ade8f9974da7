"""Conspiracy's tension data (issue 31: "Every metric is in report.md/report.html ... for both
games"): every 16th game replayed with each seat's running score after every round
(`games.conspiracy.engine.trajectory`). The replay must be the kernel's game (its last row is the
kernel's final score), its rounds the reference engine's (the rule's own scoring, "1. Your Lords
... 2. Your Locations ... 3. Your Lords Coalition ... 4. The Pearl Master", applied after each
round), and its bytes independent of how the games were chunked."""

from __future__ import annotations

import numpy as np
import pytest

from games.conspiracy.engine import fast, trajectory
from games.conspiracy.engine.cards.loader import load_cards
from games.conspiracy.engine.kernel import game as KN
from games.conspiracy.strategies import REGISTRY
from sim.core.batch import rotated_seatings
from sim.core.samples import EVERY, NOT_PLAYED, GameSamples

LINEUP = ["coalition_builder", "key_hunter", "random"]


def _samples(tables, games, n_players=3, seed=7):
    policies = REGISTRY.make_policies(LINEUP, n_players)
    seatings = rotated_seatings(games, n_players)
    out_seats, _ = fast.play_raw(tables, seed, games, seatings, policies)
    return trajectory.samples(tables, seed, games, seatings, policies, out_seats), out_seats


@pytest.fixture(scope="module")
def tables():
    return load_cards()


def test_the_replay_ends_on_the_kernels_final_scores(tables):
    games = np.arange(64 * EVERY, dtype=np.int64)
    kept, out_seats = _samples(tables, games)
    assert len(kept) == 64 and set(kept.game % EVERY) == {0}
    played = (kept.scores[:, :, 0] != NOT_PLAYED).sum(axis=1)
    last = kept.scores[np.arange(len(kept)), played - 1]
    np.testing.assert_array_equal(last, out_seats[kept.game, :, KN.R_SCORE])
    np.testing.assert_array_equal(kept.final, out_seats[kept.game, :, KN.R_SCORE])
    assert (played >= 5).all()  # a Chamber of 15 Lords takes rounds


def test_the_rounds_are_the_reference_engines_running_scores(tables):
    """The reference engine stepped turn by turn, scored after each round by the rule's scoring
    (`score_player`), gives the replay's rows, over several games and player counts."""
    from games.conspiracy.engine.rules.game import Game, score_player

    for n_players in (3, 4):
        games = np.arange(3 * EVERY, dtype=np.int64)
        kept, _ = _samples(tables, games, n_players, seed=11)
        policies = REGISTRY.make_policies(LINEUP, n_players)
        for i, game in enumerate(kept.game):
            seated = [policies[j] for j in kept.strategy[i]]
            g = Game(tables, seated, 11, int(game))
            rows = []
            while True:
                seat = g.next_seat
                g.keep_turn_start()
                g.take_turn(seat)
                over = g.end_of_turn(seat)
                if over or g.next_seat == 0:
                    rows.append([score_player(g.t, p, p.seat == g.pearl_master).total
                                 for p in g.players])  # fmt: skip
                if over:
                    break
            mine = kept.scores[i][kept.scores[i, :, 0] != NOT_PLAYED]
            np.testing.assert_array_equal(mine, np.array(rows))


def test_the_samples_are_the_same_bytes_however_the_games_are_chunked(tables):
    games = np.arange(40 * EVERY, dtype=np.int64)
    whole, _ = _samples(tables, games)
    parts = [_samples(tables, chunk)[0] for chunk in np.array_split(games, [100, 333, 480])]
    merged = parts[3].merge(parts[1]).merge(parts[0]).merge(parts[2])
    for field in ("game", "strategy", "scores", "final", "rank"):
        np.testing.assert_array_equal(getattr(merged, field), getattr(whole, field))


def test_saved_samples_load_the_same(tables, tmp_path):
    kept, _ = _samples(tables, np.arange(4 * EVERY, dtype=np.int64))
    kept.save(tmp_path / "a.npz")
    back = GameSamples.load(tmp_path / "a.npz")
    assert all(np.array_equal(getattr(back, f), getattr(kept, f)) for f in
               ("game", "strategy", "scores", "final", "rank"))  # fmt: skip


def test_a_tournament_report_has_the_tension_section_and_comeback_verdicts(tmp_path):
    from typer.testing import CliRunner

    from cli.app import app

    out = tmp_path / "run"
    args = ["tournament", "--game", "conspiracy", "--players", "2,3", "--strategies",
            "key_hunter,random", "--blocks", "160", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (out / "aggregates-2p.npz").is_file() and (out / "aggregates-3p.npz").is_file()
    shown = CliRunner().invoke(app, ["report", str(out)])
    assert shown.exit_code == 0, shown.output
    md = (out / "report" / "report.md").read_text()
    assert "## Tension: lead changes, the decisive point, comebacks" in md
    assert "face up" in md  # the running score says what it is
    table = (out / "report" / "verdicts.txt").read_text()
    assert "Snowball or catch-up (2p)" in table and "Snowball or catch-up (3p)" in table
    assert "Ending the game, beyond being ahead (3p)" in table and "Skill" in table
