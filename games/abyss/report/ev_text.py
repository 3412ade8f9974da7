"""`abyss-mc ev fight` and `ev explore` as text: the exact odds of `games.abyss.engine.odds`
laid out as tables, and the options that name Leviathans and Border zones read into card
indices (one-line user errors)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from sim.core.errors import UserError


def leviathan_index(tables: Any, number: int, option: str) -> int:
    """The card index of the Leviathan with printed number `number` (given in `option`)."""
    numbers = [int(n) for n in tables.leviathan_number]
    if number not in numbers:
        ordered = sorted(numbers)
        contiguous = bool(ordered) and ordered == list(range(ordered[0], ordered[-1] + 1))
        known = f"{ordered[0]}..{ordered[-1]}" if contiguous else ", ".join(map(str, ordered))
        raise UserError(f"{option}: unknown Leviathan number {number}; the cards are {known}")
    return numbers.index(number)


def aligned(header: list[str], rows: list[list[str]], left: tuple[int, ...] = ()) -> list[str]:
    """Columns padded to a common width; the columns in `left` left-aligned, the rest right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return [line(header), *(line(r) for r in rows)]


def chance(p: Fraction) -> str:
    """A probability as its count out of 36 and a percentage: ``18/36  50.0%``."""
    n = p * 36
    count = str(n.numerator) if n.denominator == 1 else f"{float(n):.2f}"
    return f"{count}/36 {float(p) * 100:5.1f}%"


def fight_header(tables: Any) -> list[str]:
    from games.abyss.engine import odds

    ip = odds.token_ip_mean(tables)
    deck = odds.leviathan_token_means(tables)
    return [
        "Fight a Leviathan: exact odds of ONE attack (every chance is a count of the 36 outcomes "
        "of the dice).",
        "Attack Power = die + Ally value; two_dice: the higher of both dice; add_pearls: "
        + odds.SPENDING_RULE
        + " (+1 per Pearl).",
        "Monster tokens: those printed next to each Life space removed (no Lord powers, e.g. the "
        "Altruist).",
        f"E[IP] = E[tokens] x {ip} = {float(ip):.3f}, the mean IP of a base-game Monster token "
        "(the only deck worth IP).",
        f"Leviathan token deck: {deck['tokens']} tokens; per token {float(deck['pearls']):.2f} "
        f"Pearls, {float(deck['keys']):.2f} Keys, {float(deck['council_stacks']):.2f} Council "
        "stacks (0 IP).",
        "A failed attack still gains 1 Pearl: p_fail_pearl = 1 - p_damage.",
    ]


def leviathan_title(tables: Any, index: int) -> str:
    from games.abyss.engine import odds
    from games.abyss.engine.cards.constants import Penalty

    n = int(tables.leviathan_n_spaces[index])
    spaces = " ".join(
        f"{int(tables.leviathan_resistance[index, s])}/{int(tables.leviathan_tokens[index, s])}"
        for s in range(n)
    )
    penalty = odds.PENALTY_NAME[Penalty(int(tables.leviathan_penalty[index]))]
    return (
        f"Leviathan {int(tables.leviathan_number[index])} ({odds.race_name(tables, index)}): "
        f"Life spaces {spaces} (Resistance/tokens); penalty {penalty} "
        f"{int(tables.leviathan_penalty_n[index])}"
    )


def fight_text(tables: Any, rows: list[Any]) -> str:
    header = [
        "life",
        "resistance",
        "left",
        "ally",
        "kind",
        "pearls",
        "p_damage",
        "p_kill",
        "E[life]",
        "E[tokens]",
        "E[IP]",
        "E[pearls spent]",
    ]
    lines = fight_header(tables)
    numbers = [int(n) for n in tables.leviathan_number]
    for number in dict.fromkeys(r.leviathan for r in rows):
        cells = [
            [
                str(r.life_index),
                str(r.resistance),
                str(r.lives_left),
                str(r.ally_value),
                r.ally_kind,
                str(r.pearls_available) if r.ally_kind == "add_pearls" else "",
                chance(r.p_damage),
                chance(r.p_kill),
                f"{float(r.expected_life_removed):.3f}",
                f"{float(r.expected_tokens):.3f}",
                f"{float(r.expected_ip):.3f}",
                f"{float(r.expected_pearls_spent):.3f}",
            ]
            for r in rows
            if r.leviathan == number
        ]
        lines += ["", leviathan_title(tables, numbers.index(number))]
        lines += aligned(header, cells, left=(4,))
    return "\n".join(lines) + "\n"


def parse_border(text: str, tables: Any) -> dict[int, int | None]:
    """``"5:13,7"`` -> {4: index of Leviathan 13, 6: None}: printed zones 1..n, each with the
    printed number of its Leviathan, or bare for an unknown Leviathan."""
    n_zones = int(tables.n_border_zones)
    border: dict[int, int | None] = {}
    placed: dict[int, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        zone_text, _, number_text = part.partition(":")
        try:
            zone = int(zone_text)
            number = int(number_text) if number_text.strip() else None
        except ValueError:
            raise UserError(
                f"--border: {part!r} is not ZONE or ZONE:LEVIATHAN (e.g. 5:13,7)"
            ) from None
        if not 1 <= zone <= n_zones:
            raise UserError(
                f"--border: zone {zone} is out of range; the Border has zones 1..{n_zones}"
            )
        if zone - 1 in border:
            raise UserError(f"--border: zone {zone} is given twice")
        if number is not None:
            if number in placed:
                raise UserError(
                    f"--border: Leviathan {number} is in zones {placed[number]} and {zone}"
                )
            placed[number] = zone
        border[zone - 1] = None if number is None else leviathan_index(tables, number, "--border")
    return border


def holdings_of(pearls: int | None, allies: int | None, free_lords: int | None) -> dict[str, int]:
    given = {"pearls": pearls, "allies": allies, "free_lords": free_lords}
    for key, value in given.items():
        if value is not None and value < 0:
            raise UserError(f"--{key.replace('_', '-')} must be >= 0; got {value}")
    return {k: v for k, v in given.items() if v is not None}


def _resident(tables: Any, zone: Any) -> int | None:
    return None if zone.resident is None else int(tables.leviathan_number[zone.resident])


def explore_doc(tables: Any, risk: Any, holdings: dict[str, int]) -> dict[str, Any]:
    return {
        "n_zones": int(tables.n_border_zones),
        "p_attacked": float(risk.p_attacked),
        "p_attacked_exact": str(risk.p_attacked),
        "expected_loss": {k: float(v) for k, v in risk.expected_loss.items()},
        "holdings": holdings,
        "zones": [
            {
                "zone": z.zone + 1,
                "sums": list(z.sums),
                "p_land": float(z.p_land),
                "occupied": z.occupied,
                "resident": _resident(tables, z),
                "penalty": z.penalty or None,
                "amount": None if z.amount is None else float(z.amount),
                "loss": {k: float(v) for k, v in z.loss.items()},
            }
            for z in risk.zones
        ],
    }


def _losses(loss: dict[str, Fraction]) -> str:
    return ", ".join(f"{k} {float(v):.3g}" for k, v in loss.items() if v)


def explore_text(tables: Any, risk: Any, holdings: dict[str, int]) -> str:
    n_zones = int(tables.n_border_zones)
    caps = ", ".join(f"{k} {v}" for k, v in holdings.items()) or "none given (uncapped)"
    lines = [
        f"Continue your Exploration: the next Leviathan lands by 2d6 on Border zones 1..{n_zones}.",
        "An occupied zone's Leviathan attacks you (its penalty) before the newcomer replaces it.",
        f"P(attacked) = {chance(risk.p_attacked)}",
        "Expected loss: "
        + ", ".join(f"{k} {float(v):.3f}" for k, v in risk.expected_loss.items())
        + " (wounds in IP)",
        f"Holdings: {caps}",
    ]
    if any(z.occupied and z.resident is None for z in risk.zones):
        lines.append(
            f"A zone without a number holds an unknown Leviathan: its penalty is averaged over "
            f"the {int(tables.leviathan_number.shape[0])} Leviathan cards."
        )
    cells = []
    for z in risk.zones:
        resident = _resident(tables, z)
        if not z.occupied:
            who, penalty, amount = "-", "", ""
        elif resident is None:
            who, penalty, amount = "?", z.penalty, _losses(z.loss)
        else:
            who, penalty, amount = str(resident), z.penalty, f"{float(z.amount):.3g}"
        sums = ",".join(str(s) for s in z.sums)
        cells.append([str(z.zone + 1), sums, chance(z.p_land), who, penalty, amount])
    header = ["zone", "sums", "p_land", "resident", "penalty", "amount"]
    lines += [""] + aligned(header, cells, left=(1, 3, 4, 5))
    return "\n".join(lines) + "\n"
