"""Exact odds of the Leviathan decision: fight (one attack) or explore (add a Leviathan).

Everything here is enumerated, not sampled: a die has six faces, two dice 36 outcomes, so every
probability is a multiple of 1/36 and is returned as a `fractions.Fraction`. `fight_table` gives
floats in a pandas DataFrame; `fight_rows` keeps the exact Fractions (for tests).

Specification: `shared/seeds/000_e41d5a114fc236c8.txt` ("How to Play Abyss: Leviathan"), sections
"Continue your Exploration: Add a Leviathan" and "Fight a Leviathan"; the rules are those of the
reference engine `games.abyss.engine.rules.leviathan` (whose `life_points_removed` is reused).

What is NOT counted: Lord powers (the Altruist's extra token, the Taxidermist's Pearls, the
Metamorph, ...), the Pearl a failed attack earns in the expected Pearls spent, and what the
Monster tokens won are worth beyond their count (see `token_ip_mean`, `leviathan_token_means`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from games.abyss.engine.cards.constants import AllyEffect, LeviathanToken, Penalty, Race
from games.abyss.engine.rules.leviathan import life_points_removed

if TYPE_CHECKING:
    import pandas as pd

    from games.abyss.engine.cards.tables import CardTables

#: The kinds of Ally an attack can use, by their effect printed on the card.
ALLY_KINDS = ("plain", "add_pearls", "two_dice")
EFFECT_OF_KIND = {
    "plain": AllyEffect.NONE,
    "add_pearls": AllyEffect.ADD_PEARLS,
    "two_dice": AllyEffect.TWO_DICE,
}
ALLY_VALUES = tuple(range(1, 6))
MAX_PEARLS = 5  # Pearls available tabulated for an "add Pearls" Ally: 0..MAX_PEARLS

#: How many Pearls an "add Pearls" attack spends after the roll (= `kernel.core.pearls_to_spend`).
SPENDING_RULE = (
    "after the roll, spend the fewest Pearls (0..available) that remove the most Life Points "
    "reachable with all available Pearls"
)

#: Penalty types of a Leviathan's attack, in `Penalty` order; wounds are counted in IP.
PENALTY_TYPES = ("wounds", "pearls", "allies", "free_lords")
PENALTY_NAME = {
    Penalty.WOUNDS: "wounds",
    Penalty.PEARLS: "pearls",
    Penalty.ALLIES: "allies",
    Penalty.LORD: "free_lords",
}

#: Columns of `fight_table`, in order.
FIGHT_COLUMNS = (
    "leviathan",
    "race",
    "life_index",
    "resistance",
    "lives_left",
    "ally_value",
    "ally_kind",
    "pearls_available",
    "p_damage",
    "p_kill",
    "expected_life_removed",
    "expected_tokens",
    "expected_ip",
    "expected_pearls_spent",
    "p_fail_pearl",
)


# --- dice ------------------------------------------------------------------------------------


def die_weights(ally_kind: str) -> tuple[tuple[int, int], ...]:
    """(die result, weight out of 36) of the die an attack counts.

    "Then, roll ONE die." (weight 6 per face). A "two dice" Ally: "roll BOTH dice and only take
    into account the higher of the two values": the higher is d in 2d - 1 of the 36 outcomes.
    """
    effect = _effect(ally_kind)
    if effect == AllyEffect.TWO_DICE:
        return tuple((d, 2 * d - 1) for d in range(1, 7))
    return tuple((d, 6) for d in range(1, 7))


def sum_weights() -> dict[int, int]:
    """Outcomes (out of 36) of each 2d6 sum 2..12: "roll the 2 dice. The sum of the results"."""
    weights: dict[int, int] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            weights[a + b] = weights.get(a + b, 0) + 1
    return weights


def _effect(ally_kind: str | int) -> AllyEffect:
    if isinstance(ally_kind, str):
        if ally_kind not in EFFECT_OF_KIND:
            raise ValueError(f"unknown ally kind {ally_kind!r}; known: {', '.join(ALLY_KINDS)}")
        return EFFECT_OF_KIND[ally_kind]
    return AllyEffect(int(ally_kind))


# --- one attack ------------------------------------------------------------------------------


def lives_left(tables: CardTables, leviathan: int, life_index: int) -> int:
    """Life Points the Leviathan still has with its Life token on space `life_index`."""
    return int(tables.leviathan_n_spaces[leviathan]) - life_index


def pearls_to_spend(
    tables: CardTables, leviathan: int, life_index: int, power: int, pearls: int
) -> int:
    """The stated spending rule (`SPENDING_RULE`, = compiled `kernel.core.pearls_to_spend`).

    "After rolling the die, you can spend as many Pearls as you wish to add to your Attack Power:
    +1 per Pearl." The fewest Pearls that reach the most Life Points all `pearls` can reach, so a
    Pearl that adds no Life Point is never spent.
    """
    best = life_points_removed(tables, leviathan, life_index, power + pearls)
    for spend in range(pearls + 1):
        if life_points_removed(tables, leviathan, life_index, power + spend) == best:
            return spend
    return pearls


def tokens_won(tables: CardTables, leviathan: int, life_index: int, removed: int) -> int:
    """Monster tokens printed on the `removed` Life spaces from `life_index` on.

    "When a Leviathan loses one of its Life Points, gain as a reward the number of Monster tokens
    indicated next to the Life Point token, and then move the life token to the next space."
    Lord powers (the Altruist's extra token) are not counted.
    """
    spaces = range(life_index, life_index + removed)
    return sum(int(tables.leviathan_tokens[leviathan, s]) for s in spaces)


@dataclass(frozen=True)
class AttackOutcomes:
    """Exact outcome of ONE attack: P(Life Points removed = k) and expectations."""

    lives_left: int
    removed: dict[int, Fraction]  # k -> P(k Life Points removed), k = 0..lives_left
    expected_tokens: Fraction  # Monster tokens won (printed on the removed spaces)
    expected_pearls_spent: Fraction  # Pearls added after the roll, by SPENDING_RULE

    @property
    def p_damage(self) -> Fraction:
        """P(the attack removes at least one Life Point): "Your attack is successful."."""
        return 1 - self.removed[0]

    @property
    def p_kill(self) -> Fraction:
        """P(all remaining Life Points are removed): "it is dead"."""
        return self.removed[self.lives_left]

    @property
    def expected_life_removed(self) -> Fraction:
        return sum((k * p for k, p in self.removed.items()), Fraction(0))


def attack_outcomes(
    tables: CardTables,
    leviathan: int,
    life_index: int,
    ally_value: int,
    ally_kind: str,
    pearls_available: int = 0,
) -> AttackOutcomes:
    """The exact distribution of the Life Points one attack removes.

    "Your Attack Power = the die result + the value of the discarded Ally." "If your Attack Power
    is equal to or greater than the sum of multiple Leviathan Resistance levels, it loses as many
    Life Points as levels are surpassed." Levels are counted from the Life token's space
    `life_index` (0 = the top space). `leviathan` is the card index, `ally_kind` one of
    `ALLY_KINDS`; `pearls_available` only matters for "add_pearls" (spent by `SPENDING_RULE`).
    """
    if not 0 <= life_index < int(tables.leviathan_n_spaces[leviathan]):
        raise ValueError(f"life_index {life_index} is not a Life space of leviathan {leviathan}")
    left = lives_left(tables, leviathan, life_index)
    if pearls_available < 0:
        raise ValueError(f"pearls_available must be >= 0; got {pearls_available}")
    add_pearls = _effect(ally_kind) == AllyEffect.ADD_PEARLS
    counts = dict.fromkeys(range(left + 1), 0)
    tokens = spent = 0
    for die, weight in die_weights(ally_kind):
        power = die + ally_value
        spend = (
            pearls_to_spend(tables, leviathan, life_index, power, pearls_available)
            if add_pearls
            else 0
        )
        removed = life_points_removed(tables, leviathan, life_index, power + spend)
        counts[removed] += weight
        tokens += weight * tokens_won(tables, leviathan, life_index, removed)
        spent += weight * spend
    return AttackOutcomes(
        lives_left=left,
        removed={k: Fraction(n, 36) for k, n in counts.items()},
        expected_tokens=Fraction(tokens, 36),
        expected_pearls_spent=Fraction(spent, 36),
    )


# --- Monster tokens --------------------------------------------------------------------------


def token_ip_mean(tables: CardTables) -> Fraction:
    """Mean IP of a token of the base game's Monster token deck (the only deck worth IP).

    "You can choose your Monster tokens from those of this expansion, those of the base game, or
    a mix of both." `expected_ip` assumes every token is taken from the base deck.
    """
    ips = [int(v) for v in tables.monster_token_ip]
    return Fraction(sum(ips), len(ips)) if ips else Fraction(0)


def leviathan_token_means(tables: CardTables) -> dict[str, Any]:
    """The Leviathan Monster token deck: its size and the mean Pearls, Keys and Council stacks
    per token. "Depending on the token, gain 2 to 3 Pearls, a Key, or a Council stack." """
    n = int(tables.leviathan_token_kind.shape[0])
    totals = {LeviathanToken.PEARLS: 0, LeviathanToken.KEY: 0, LeviathanToken.COUNCIL: 0}
    for kind, amount in zip(
        tables.leviathan_token_kind, tables.leviathan_token_amount, strict=True
    ):
        totals[LeviathanToken(int(kind))] += int(amount)
    means = {k: Fraction(v, n) if n else Fraction(0) for k, v in totals.items()}
    return {
        "tokens": n,
        "pearls": means[LeviathanToken.PEARLS],
        "keys": means[LeviathanToken.KEY],
        "council_stacks": means[LeviathanToken.COUNCIL],
    }


# --- the fight table -------------------------------------------------------------------------


def race_name(tables: CardTables, leviathan: int) -> str:
    """The Allied race that may attack the Leviathan, or "none" (only Crabs can)."""
    race = int(tables.leviathan_race[leviathan])
    return "none" if race < 0 else Race(race).name.lower()


@dataclass(frozen=True)
class FightRow:
    """One row of the fight table, exact (the fields of `FIGHT_COLUMNS`)."""

    leviathan: int  # printed number
    race: str
    life_index: int
    resistance: int
    lives_left: int
    ally_value: int
    ally_kind: str
    pearls_available: int
    p_damage: Fraction
    p_kill: Fraction
    expected_life_removed: Fraction
    expected_tokens: Fraction
    expected_ip: Fraction
    expected_pearls_spent: Fraction
    p_fail_pearl: Fraction  # "Your Ally is discarded, but you still gain 1 Pearl"


def attack_setups() -> list[tuple[int, str, int]]:
    """(ally_value, ally_kind, pearls_available) of every tabulated attack."""
    setups = []
    for value in ALLY_VALUES:
        for kind in ALLY_KINDS:
            pearls = range(MAX_PEARLS + 1) if kind == "add_pearls" else (0,)
            setups += [(value, kind, p) for p in pearls]
    return setups


def fight_rows(tables: CardTables) -> list[FightRow]:
    """Every Leviathan card x Life space x Ally value 1..5 x kind (x Pearls 0..5), exact."""
    ip_mean = token_ip_mean(tables)
    rows = []
    for lev in range(int(tables.leviathan_number.shape[0])):
        for life in range(int(tables.leviathan_n_spaces[lev])):
            for value, kind, pearls in attack_setups():
                out = attack_outcomes(tables, lev, life, value, kind, pearls)
                rows.append(
                    FightRow(
                        leviathan=int(tables.leviathan_number[lev]),
                        race=race_name(tables, lev),
                        life_index=life,
                        resistance=int(tables.leviathan_resistance[lev, life]),
                        lives_left=out.lives_left,
                        ally_value=value,
                        ally_kind=kind,
                        pearls_available=pearls,
                        p_damage=out.p_damage,
                        p_kill=out.p_kill,
                        expected_life_removed=out.expected_life_removed,
                        expected_tokens=out.expected_tokens,
                        expected_ip=out.expected_tokens * ip_mean,
                        expected_pearls_spent=out.expected_pearls_spent,
                        p_fail_pearl=1 - out.p_damage,
                    )
                )
    return rows


def row_record(row: FightRow) -> dict[str, Any]:
    """A fight row as a dict of `FIGHT_COLUMNS`, the Fractions as floats."""
    return {c: float(v) if isinstance(v, Fraction) else v for c, v in vars(row).items()}


def rows_frame(rows: list[FightRow]) -> pd.DataFrame:
    """Fight rows as a DataFrame of floats, columns `FIGHT_COLUMNS`."""
    import pandas as pd

    return pd.DataFrame.from_records([row_record(r) for r in rows], columns=list(FIGHT_COLUMNS))


def fight_table(tables: CardTables) -> pd.DataFrame:
    """`fight_rows` as a DataFrame of floats, columns `FIGHT_COLUMNS`."""
    return rows_frame(fight_rows(tables))


# --- exploring: a Leviathan lands on the Border ----------------------------------------------


@dataclass(frozen=True)
class ZoneRisk:
    """One Border zone: its chance to receive the next Leviathan and what its resident does."""

    zone: int  # 0-based
    sums: tuple[int, ...]  # the 2d6 sums that point to it
    p_land: Fraction
    occupied: bool
    resident: int | None  # card index; None: free, or an unknown Leviathan when occupied
    penalty: str  # a PENALTY_TYPES name; "average" for an unknown Leviathan; "" when free
    amount: Fraction | None  # the (capped) loss of `penalty`; None for an unknown Leviathan
    loss: dict[str, Fraction]  # the (capped) loss by penalty type if the Leviathan lands here


@dataclass(frozen=True)
class ExploreRisk:
    p_attacked: Fraction  # P(the next Leviathan lands on an occupied zone)
    expected_loss: dict[str, Fraction]  # by PENALTY_TYPES, over the 36 outcomes of the 2d6
    zones: list[ZoneRisk]


def zone_sums(tables: CardTables) -> dict[int, tuple[int, ...]]:
    """0-based zone -> the 2d6 sums that place a Leviathan there (`border_zone_of_sum`)."""
    sums: dict[int, list[int]] = {z: [] for z in range(int(tables.n_border_zones))}
    for s in range(2, 13):
        sums[int(tables.border_zone_of_sum[s])].append(s)
    return {z: tuple(v) for z, v in sums.items()}


def zone_chances(tables: CardTables) -> dict[int, Fraction]:
    """0-based zone -> the exact chance that the 2d6 roll places a Leviathan there."""
    weights = sum_weights()
    return {z: Fraction(sum(weights[s] for s in sums), 36) for z, sums in zone_sums(tables).items()}


def attack_chance(tables: CardTables, occupied) -> Fraction:
    """`explore_risk`'s P(attacked) alone: the chance the roll lands on an occupied zone."""
    chance = zone_chances(tables)
    return sum((chance[z] for z in occupied), Fraction(0))


def penalty_loss(
    tables: CardTables, leviathan: int, holdings: dict[str, int] | None = None
) -> dict[str, Fraction]:
    """What the Leviathan's attack takes, by penalty type, capped by `holdings`.

    "Receive as many Wound tokens as indicated on the Leviathan. At the end of the game, each
    Wound token in your possession costs 1 Influence Point." "Discard three Pearls. If you have
    fewer than three Pearls, discard all you have." (likewise Allies and free Lords). `holdings`
    may give `pearls`, `allies`, `free_lords`; a missing one is not capped.
    """
    name = PENALTY_NAME[Penalty(int(tables.leviathan_penalty[leviathan]))]
    n = int(tables.leviathan_penalty_n[leviathan])
    held = (holdings or {}).get(name)
    if held is not None and name != "wounds":
        n = min(n, held)
    loss = dict.fromkeys(PENALTY_TYPES, Fraction(0))
    loss[name] = Fraction(n)
    return loss


def unknown_loss(tables: CardTables, holdings: dict[str, int] | None = None) -> dict[str, Fraction]:
    """`penalty_loss` averaged uniformly over every card of the Leviathan deck."""
    n = int(tables.leviathan_number.shape[0])
    total = dict.fromkeys(PENALTY_TYPES, Fraction(0))
    for lev in range(n):
        for k, v in penalty_loss(tables, lev, holdings).items():
            total[k] += v
    return {k: v / n for k, v in total.items()}


def _check_holdings(holdings: dict[str, int] | None) -> None:
    for key, value in (holdings or {}).items():
        if key not in ("pearls", "allies", "free_lords"):
            raise ValueError(f"unknown holding {key!r}; known: pearls, allies, free_lords")
        if value is not None and value < 0:
            raise ValueError(f"holding {key} must be >= 0; got {value}")


def zone_risk(
    tables: CardTables,
    zone: int,
    sums: tuple[int, ...],
    p_land: Fraction,
    border: dict[int, int | None],
    holdings: dict[str, int] | None,
) -> ZoneRisk:
    """One zone of `explore_risk` (`p_land`: its `zone_chances`)."""
    occupied = zone in border
    resident = border.get(zone)
    if not occupied:
        penalty, loss, amount = "", dict.fromkeys(PENALTY_TYPES, Fraction(0)), Fraction(0)
    elif resident is None:
        penalty, loss, amount = "average", unknown_loss(tables, holdings), None
    else:
        loss = penalty_loss(tables, resident, holdings)
        penalty = PENALTY_NAME[Penalty(int(tables.leviathan_penalty[resident]))]
        amount = loss[penalty]
    return ZoneRisk(zone, sums, p_land, occupied, resident, penalty, amount, loss)


def explore_risk(
    tables: CardTables,
    border: dict[int, int | None],
    holdings: dict[str, int] | None = None,
) -> ExploreRisk:
    """Exact risk of continuing the Exploration.

    "Reveal the top card of the Leviathan deck, then roll the 2 dice. The sum of the results
    obtained indicates the Border zone where the Leviathan will position itself." "If the zone is
    occupied: The Leviathan already present in the zone attacks you before being removed by the
    newcomer; you cannot avoid this attack."

    `border` maps each occupied 0-based zone to its Leviathan's card index, or to None for an
    unknown Leviathan (its penalty is averaged uniformly over the Leviathan deck's cards).
    `holdings` (optional keys `pearls`, `allies`, `free_lords`) caps the losses.
    """
    n_zones = int(tables.n_border_zones)
    n_cards = int(tables.leviathan_number.shape[0])
    for zone, lev in border.items():
        if not 0 <= zone < n_zones:
            raise ValueError(f"zone {zone} is not a Border zone (0..{n_zones - 1})")
        if lev is not None and not 0 <= lev < n_cards:
            raise ValueError(f"leviathan {lev} is not a card index (0..{n_cards - 1})")
    _check_holdings(holdings)
    chance = zone_chances(tables)
    zones = [zone_risk(tables, z, sums, chance[z], border, holdings)
             for z, sums in zone_sums(tables).items()]  # fmt: skip
    expected = {k: sum((z.p_land * z.loss[k] for z in zones), Fraction(0)) for k in PENALTY_TYPES}
    p_attacked = attack_chance(tables, border)
    return ExploreRisk(p_attacked=p_attacked, expected_loss=expected, zones=zones)
