"""Extra starting Pearls by seat, a balance experiment for `abyss-mc design` (never a default).

Seed text, setup: "Each player takes one Pearl from the supply and stores it in a plastic cup."
rules.toml: seat 1 starts with `first_player_pearls` more, seat N with `seat_N_pearls` more."""

from __future__ import annotations

import numpy as np
import pytest

from sim import games


@pytest.mark.parametrize("n_players, key, seat", [(3, "seat_3_pearls", 2), (4, "seat_2_pearls", 1),
                                                  (5, "seat_5_pearls", 4)])  # fmt: skip
def test_a_seat_s_extra_pearls_are_its_own_on_both_engines(n_players, key, seat) -> None:
    from games.abyss.engine.audit import audit
    from games.abyss.engine.rules.game import Game

    spec = games.get("abyss")
    exp = ("leviathan",) if n_players == 5 else ()
    tables = spec.load_cards(None, [f"rules.{key}=4"], exp)
    policies = spec.strategies().make_policies(["greedy"] * n_players, n_players)
    g = Game(tables, policies, seed=4, game=0)
    expected = [1] * n_players
    expected[seat] = 5
    assert [p.pearls for p in g.players] == expected  # the seed's one Pearl, and 4 more
    assert audit(g.play()) == []  # the Pearl ledger balances
    runs = [spec.play().run_games(tables, engine=e, n_players=n_players, n_games=12, seed=4,
                                  policies=policies) for e in ("fast", "reference")]  # fmt: skip
    assert runs[0].seats.equals(runs[1].seats)
    plain = spec.play().run_games(spec.load_cards(None, [], exp), engine="fast",
                                  n_players=n_players, n_games=12, seed=4, policies=policies)
    assert not np.array_equal(plain.seats["score"], runs[0].seats["score"])


def test_the_rules_as_printed_keep_their_digest_and_give_one_pearl_each() -> None:
    spec = games.get("abyss")
    printed = spec.load_cards(None, [], ())
    zeros = spec.load_cards(None, [f"rules.seat_{n}_pearls=0" for n in range(2, 6)], ())
    assert printed.rules.extra_pearls() == (0, 0, 0, 0, 0)
    assert zeros.digest == printed.digest
    assert spec.load_cards(None, ["rules.seat_2_pearls=1"], ()).digest != printed.digest


def test_more_than_twenty_extra_pearls_is_one_clear_error() -> None:
    from sim.core.carddata import CardDataError

    with pytest.raises(CardDataError, match="seat_3_pearls: must be in 0..20"):
        games.get("abyss").load_cards(None, ["rules.seat_3_pearls=21"], ())
