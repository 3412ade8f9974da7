"""Exact odds of one attack on a Leviathan, by enumerating the dice (Leviathan expansion).

"Your Attack Power = the die result + the value of the discarded Ally." An Ally that adds Pearls
may spend them "after rolling the die"; an Ally that rolls both dice keeps "the higher of the two
values". The Life Points removed follow the Resistance chain (`life_points_removed`).

Pearl spending rule used for the odds (and by the built-in strategies): after seeing the die,
spend the fewest Pearls that remove as many Life Points as the Pearls available can reach; spend
nothing if no Pearl changes the outcome.
"""

from __future__ import annotations

from fractions import Fraction

from sim.abyss.constants import AllyEffect
from sim.abyss.leviathan import life_points_removed


def die_distribution(effect: int) -> dict[int, Fraction]:
    """P(die result = k): one die, or the higher of two dice for a two-dice Ally."""
    if effect == AllyEffect.TWO_DICE:
        # P(max of two dice = k) = (k^2 - (k-1)^2) / 36 = (2k - 1) / 36
        return {k: Fraction(2 * k - 1, 36) for k in range(1, 7)}
    return {k: Fraction(1, 6) for k in range(1, 7)}


def pearls_to_spend(t, leviathan: int, life: int, power: int, pearls: int) -> int:
    """The fewest Pearls (0..pearls) that remove the most Life Points reachable."""
    best = life_points_removed(t, leviathan, life, power + pearls)
    for spend in range(pearls + 1):
        if life_points_removed(t, leviathan, life, power + spend) == best:
            return spend
    return pearls  # unreachable: spend == pearls always matches


def attack_distribution(
    t, leviathan: int, life: int, value: int, effect: int, pearls: int = 0
) -> list[Fraction]:
    """P(the attack removes exactly k Life Points), k = 0 .. Life Points left.

    `pearls` counts only for an Ally that adds Pearls (`AllyEffect.ADD_PEARLS`).
    """
    left = int(t.leviathan_n_spaces[leviathan]) - life
    probs = [Fraction(0)] * (left + 1)
    usable = pearls if effect == AllyEffect.ADD_PEARLS else 0
    for die, p in die_distribution(effect).items():
        power = die + value
        power += pearls_to_spend(t, leviathan, life, power, usable)
        probs[life_points_removed(t, leviathan, life, power)] += p
    return probs


def p_damage(t, leviathan: int, life: int, value: int, effect: int, pearls: int = 0) -> Fraction:
    """P(the attack removes at least one Life Point)."""
    return 1 - attack_distribution(t, leviathan, life, value, effect, pearls)[0]
