"""``abyss-mc ev``: the Leviathan decision, fight or explore, with exact (enumerated) odds.

``abyss-mc ev fight`` tabulates one attack against every Leviathan Life space; ``abyss-mc ev
explore`` gives the risk of adding a Leviathan to a given Border. The odds come from
`games.abyss.engine.odds`.

The analysis is of Abyss with Leviathan (the decision exists only there), so it loads that
game's spec (`abyss_tables`). Like every command module, it imports only typer and the standard
library at the top, so ``abyss-mc --help`` stays instant.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

ev_app = typer.Typer(
    help="Fight or explore: exact odds and rollouts of the Leviathan decision.",
    no_args_is_help=True,
)

from cli.commands import common as c  # noqa: E402
from games.abyss.report.ev_runs import EXPANSIONS  # noqa: E402
from sim.core.errors import UserError  # noqa: E402

#: the game and expansion the fight-or-explore decision belongs to
GAME = "abyss"
FIGHT_FORMATS = ("table", "csv", "json")
EXPLORE_FORMATS = ("table", "json")
HOLDINGS = ("pearls", "allies", "free_lords")


def check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise UserError(f"{option} must be one of {', '.join(choices)}; got {value!r}")


def check_out(out: Path | None) -> None:
    """``--out FILE`` must be writable before any work is done."""
    if out is None:
        return
    if out.is_dir():
        raise UserError(f"--out {out} is a directory; give a file name")
    if not out.parent.is_dir():
        raise UserError(f"--out {out}: directory {out.parent} does not exist")


def emit(text: str, out: Path | None) -> None:
    """Write `text` to ``--out`` atomically (never half-written), or print it."""
    if out is None:
        typer.echo(text, nl=False)
        return
    from sim.core.runs import atomic_write_text

    try:
        atomic_write_text(out, text)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    typer.echo(f"written: {out}")








# --- fight -----------------------------------------------------------------------------------

FormatOption = Annotated[
    str,
    typer.Option("--format", metavar="table|csv|json", help="Output format."),
]


@ev_app.command()
@c.user_errors
def fight(
    format_: FormatOption = "table",
    leviathan: Annotated[
        int | None,
        typer.Option("--leviathan", metavar="N", help="Only the Leviathan with printed number N."),
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind", metavar="plain|add_pearls|two_dice", help="Only Allies of this kind."
        ),
    ] = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Write to FILE (atomically) instead of stdout."),
    ] = None,
) -> None:
    """Exact odds of ONE attack on every Leviathan Life space, by Ally value and kind."""
    check_choice("--format", format_, FIGHT_FORMATS)
    from games.abyss.engine import odds

    if kind is not None:
        check_choice("--kind", kind, odds.ALLY_KINDS)
    check_out(out)
    from games.abyss.report.ev_text import fight_text, leviathan_index

    tables = c.game_spec(GAME).load_cards(cards, set_, EXPANSIONS)
    if leviathan is not None:
        leviathan_index(tables, leviathan, "--leviathan")
    rows = [
        r
        for r in odds.fight_rows(tables)
        if (leviathan is None or r.leviathan == leviathan) and (kind is None or r.ally_kind == kind)
    ]
    if format_ == "csv":
        text = odds.rows_frame(rows).to_csv(index=False)
    elif format_ == "json":
        doc = {
            "spending_rule": odds.SPENDING_RULE,
            "token_ip_mean": float(odds.token_ip_mean(tables)),
            "rows": [odds.row_record(r) for r in rows],
        }
        text = json.dumps(doc, indent=1) + "\n"
    else:
        text = fight_text(tables, rows)
    emit(text, out)








# --- explore ---------------------------------------------------------------------------------






def _count_option(name: str, what: str) -> Any:
    return typer.Option(name, metavar="N", help=f"Your {what}: caps that loss.")


@ev_app.command()
@c.user_errors
def explore(
    border: Annotated[
        str,
        typer.Option(
            "--border",
            metavar="ZONES",
            help="Occupied Border zones (printed 1..n), comma-separated: ZONE:LEVIATHAN (its "
            "printed number) or a bare ZONE for an unknown Leviathan, e.g. 5:13,7. Empty: only "
            "the landing chance of every zone.",
        ),
    ] = "",
    pearls: Annotated[int | None, _count_option("--pearls", "Pearls")] = None,
    allies: Annotated[int | None, _count_option("--allies", "Allies in hand")] = None,
    free_lords: Annotated[int | None, _count_option("--free-lords", "free Lords")] = None,
    format_: Annotated[
        str, typer.Option("--format", metavar="table|json", help="Output format.")
    ] = "table",
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
) -> None:
    """Exact risk of continuing the Exploration: where the next Leviathan lands, what it costs."""
    check_choice("--format", format_, EXPLORE_FORMATS)
    from games.abyss.report.ev_text import explore_doc, explore_text, holdings_of, parse_border

    holdings = holdings_of(pearls, allies, free_lords)
    tables = c.game_spec(GAME).load_cards(cards, set_, EXPANSIONS)
    occupied = parse_border(border, tables)
    from games.abyss.engine import odds

    risk = odds.explore_risk(tables, occupied, holdings or None)
    if format_ == "json":
        typer.echo(json.dumps(explore_doc(tables, risk, holdings), indent=1))
    else:
        typer.echo(explore_text(tables, risk, holdings), nl=False)
