"""``abyss-mc ev``: the Leviathan decision, fight or explore, with exact (enumerated) odds.

``abyss-mc ev fight`` tabulates one attack against every Leviathan Life space; ``abyss-mc ev
explore`` gives the risk of adding a Leviathan to a given Border. The odds come from
`sim.abyss.odds`.

The analysis is of Abyss with Leviathan (the decision exists only there), so it loads that
game's spec (`abyss_tables`). Like every command module, it imports only typer and the standard
library at the top, so ``abyss-mc --help`` stays instant.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer

ev_app = typer.Typer(
    help="Fight or explore: exact odds and rollouts of the Leviathan decision.",
    no_args_is_help=True,
)

from cli.commands import common as c  # noqa: E402
from reports.run import Run, card_digest, data_options  # noqa: E402
from sim.core.errors import UserError  # noqa: E402

#: the game and expansion the fight-or-explore decision belongs to
GAME, EXPANSIONS = "abyss", ("leviathan",)
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
    from sim.abyss import odds

    if kind is not None:
        check_choice("--kind", kind, odds.ALLY_KINDS)
    check_out(out)
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


def fight_header(tables: Any) -> list[str]:
    from sim.abyss import odds

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
    from sim.abyss import odds
    from sim.abyss.constants import Penalty

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


# --- explore ---------------------------------------------------------------------------------


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
    holdings = holdings_of(pearls, allies, free_lords)
    tables = c.game_spec(GAME).load_cards(cards, set_, EXPANSIONS)
    occupied = parse_border(border, tables)
    from sim.abyss import odds

    risk = odds.explore_risk(tables, occupied, holdings or None)
    if format_ == "json":
        typer.echo(json.dumps(explore_doc(tables, risk, holdings), indent=1))
    else:
        typer.echo(explore_text(tables, risk, holdings), nl=False)


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


# --- forked rollouts ---------------------------------------------------------------------------


def lineup_of(spec: Any, strategies: str, players: int) -> tuple[list[str], list[str]]:
    """``--strategies``: the names given, and the line-up (the names repeated to at least
    `players`); every name is checked before any work."""
    names = [p.strip() for p in strategies.split(",") if p.strip()]
    if not names:
        raise UserError("--strategies is empty; give at least one strategy name")
    for name in names:
        spec.strategies().make_policy(name)  # unknown names and parameters fail before any work
    return names, [names[i % len(names)] for i in range(max(players, len(names)))]


#: The default line-up of `ev rollout`: the built-in strategies with different fight rules.
DEFAULT_ROLLOUT_STRATEGIES = "greedy,leviathan_hunter,cautious_explorer,lord_rusher"


@ev_app.command()
@c.user_errors
def rollout(
    players: Annotated[int, typer.Option("--players", help="Players per game: 2-5.")] = 4,
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            metavar="A,B,...",
            help="Strategies of the games the decision points come from; with more names than "
            "players, game g seats names g, g+1, ... (every strategy in every seat).",
        ),
    ] = DEFAULT_ROLLOUT_STRATEGIES,
    points: Annotated[
        int, typer.Option("--points", help="Decision points to sample (one per game).")
    ] = 10_000,
    replicates: Annotated[
        int, typer.Option("--replicates", help="Rollouts of each choice per decision point.")
    ] = 32,
    seed: c.SeedOption = 1,
    rule_points: Annotated[
        int,
        typer.Option(
            "--rule-points",
            help="Decision points (the first of --points) that also get rule rollouts: the "
            "deciding seat switches to each candidate fight rule to the end of the game; the "
            "best rule is the learnt one. 0: skip.",
        ),
    ] = 8000,
    rule_replicates: Annotated[
        int, typer.Option("--rule-replicates", help="Rollouts per candidate rule and point.")
    ] = 8,
    verify_blocks: Annotated[
        int,
        typer.Option(
            "--verify-blocks",
            help="Check the learnt rule in a tournament of this many blocks: each strategy "
            "with and without it, every combination and seating. 0: skip.",
        ),
    ] = 2000,
    unpaired_check: Annotated[
        bool,
        typer.Option(
            "--unpaired-check/--no-unpaired-check",
            help="Also play the continue branch on independent random numbers, to show what "
            "common random numbers gain (50% more games).",
        ),
    ] = True,
    report: Annotated[
        bool,
        typer.Option("--report/--no-report", help="Write the 'Fight or explore?' page."),
    ] = True,
    out: c.OutDirOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    threads: c.ThreadsOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Fork real decision points both ways and play them out: the value of fighting."""
    import sys
    import time

    t_start = time.perf_counter()
    spec = c.game_spec(GAME)
    spec.strategies().use_presets(presets)
    spec.check_players(None, players, EXPANSIONS)
    c.check_seed(seed)
    if points < 2:
        raise UserError(f"--points must be at least 2; got {points}")
    from sim.abyss.fork import MAX_REPLICATES

    if not 2 <= replicates <= MAX_REPLICATES:
        raise UserError(f"--replicates must be between 2 and {MAX_REPLICATES}; got {replicates}")
    if verify_blocks < 0:
        raise UserError(f"--verify-blocks must be at least 0; got {verify_blocks}")
    if rule_points < 0:
        raise UserError(f"--rule-points must be at least 0; got {rule_points}")
    if not 1 <= rule_replicates <= MAX_REPLICATES:
        raise UserError(
            f"--rule-replicates must be between 1 and {MAX_REPLICATES}; got {rule_replicates}"
        )
    names, lineup = lineup_of(spec, strategies, players)
    from sim.core.batch import set_threads
    from sim.core.runs import write_manifest

    set_threads(threads)
    run = Run.start("ev rollout", out, seed, resumable=False)
    out_dir = run.out
    with run:
        tables = c.game_spec(GAME).load_cards(cards, set_, EXPANSIONS)
        from reports.games.abyss import ROLLOUT_COMPILE_SECONDS
        from reports.rollout import rollout_text, run_rollouts, save_rollouts
        from sim.core.firstrun import first_compile

        with first_compile("fight-or-explore rollouts", ROLLOUT_COMPILE_SECONDS):
            found = run_rollouts(
                tables,
                n_players=players,
                strategies=lineup,
                seed=seed,
                n_points=points,
                replicates=replicates,
                unpaired_check=unpaired_check,
                rule_points=rule_points,
                rule_replicates=rule_replicates,
                progress=sys.stderr.isatty(),
            )
        command = ["abyss-mc", *sys.argv[1:]]
        found.meta["command"] = " ".join(command)
        if found.rules is not None and verify_blocks:
            from reports.rollout import learn_rule, verify_rule

            spec = learn_rule(found.rules)["spec"]
            if spec:
                found.verify = verify_rule(
                    tables,
                    names,
                    spec,
                    n_players=players,
                    seed=seed,
                    blocks=verify_blocks,
                    progress=sys.stderr.isatty(),
                )
        summary = save_rollouts(found, run.dir)

        write_manifest(
            run.dir,
            command=command,
            seed=seed,
            config={
                "command": "ev rollout",
                "n_players": players,
                "strategies": lineup,
                "points": points,
                "replicates": replicates,
                "unpaired_check": unpaired_check,
                "rule_points": rule_points,
                "rule_replicates": rule_replicates,
                "verify_blocks": verify_blocks,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={"total": time.perf_counter() - t_start, "rollouts": found.meta["seconds"]},
        )
        if report:
            from reports.fight_report import fight_page

            fight_page(tables, found).write(run.dir / "report")
        text = rollout_text(found, summary)
        from sim.core.runs import atomic_write_text

        atomic_write_text(run.dir / "summary.txt", text)
        run.finish()
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    if report:
        typer.echo(f"report: {out_dir / 'report' / 'report.html'}")


# --- under search play -------------------------------------------------------------------------

#: The default line-up of `ev search`: the search player at its default budget against the
#: strongest presets, open ones (docs/fight-or-explore.md "Under search play").
DEFAULT_SEARCH_STRATEGIES = (
    "search,pearl_economist_open_4p,leviathan_hunter_open_4p,farmer_open_4p"
)


@ev_app.command()
@c.user_errors
def search(
    players: Annotated[int, typer.Option("--players", help="Players per game: 2-5.")] = 4,
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            metavar="A,B,...",
            help="The line-up, with at least one search seat (e.g. search:rollouts=128); game "
            "g seats names g, g+1, ... (every strategy in every seat).",
        ),
    ] = DEFAULT_SEARCH_STRATEGIES,
    rule: Annotated[
        str,
        typer.Option(
            "--rule",
            metavar="RULE",
            help="The fight rule to check, as `ev rollout` names them: fight_risk=W/36 (fight "
            "iff an Ally can damage and continuing risks an attack with at least W/36), "
            "fight_p=C/36 (fight iff the chance of damage is at least C/36), or both.",
        ),
    ] = "fight_risk=6/36",
    games: Annotated[int, typer.Option("--games", help="Games to play.")] = 200,
    replicates: Annotated[
        int,
        typer.Option(
            "--replicates",
            help="Extra rollouts of each option per decision, paired across the options "
            "(common random numbers): they measure which choice does better.",
        ),
    ] = 32,
    seed: c.SeedOption = 1,
    out: c.OutDirOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    threads: c.ThreadsOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Check a fight rule against the search player: agreement, and which choice wins more.

    Plays games with the search player on the fast path; at each fight-or-explore decision a
    search seat takes, records the rule's inputs, the search's choice and its value of each
    option, and rolls every option out --replicates more times from there (paired). Reports the
    agreement rate and, where the rule and the search differ, the search's choice minus the
    rule's in mean reward and IP, with 95% intervals ("cannot tell" when the interval holds 0).
    """
    import sys

    spec = c.game_spec(GAME)
    spec.strategies().use_presets(presets)
    spec.check_players(None, players, EXPANSIONS)
    c.check_seed(seed)
    from reports.search_check import (
        check_summary,
        check_text,
        parse_rule,
        run_search_check,
        save_check,
    )
    from sim.abyss.kernel_record import MAX_EVAL_REPLICATES

    parse_rule(rule)
    if games < 1:
        raise UserError(f"--games must be at least 1; got {games}")
    if not 1 <= replicates < MAX_EVAL_REPLICATES:
        raise UserError(
            f"--replicates must be between 1 and {MAX_EVAL_REPLICATES - 1}; got {replicates}"
        )
    _, lineup = lineup_of(spec, strategies, players)
    from sim.core.batch import set_threads
    from sim.core.runs import atomic_write_text, write_manifest

    set_threads(threads)
    run = Run.start("ev search", out, seed, resumable=False)
    out_dir = run.out
    with run:
        tables = spec.load_cards(cards, set_, EXPANSIONS)
        check = run_search_check(
            tables,
            n_players=players,
            strategies=lineup,
            seed=seed,
            n_games=games,
            replicates=replicates,
            progress=sys.stderr.isatty(),
        )
        command = ["abyss-mc", *sys.argv[1:]]
        check.meta["command"] = " ".join(command)
        found = check_summary(check.points, rule)
        text = check_text(check, found)
        save_check(check, found, run.dir)
        write_manifest(
            run.dir,
            command=command,
            seed=seed,
            config={
                "command": "ev search",
                "n_players": players,
                "strategies": lineup,
                "rule": rule,
                "games": games,
                "replicates": replicates,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={"total": check.meta["seconds"]},
        )
        atomic_write_text(run.dir / "summary.txt", text)
        run.finish()
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
