"""``abyss-mc ev rollout`` and ``ev search``: the fight-or-explore decision played out, by forked
rollouts of real decision points and under the search player (`games.abyss.report.ev_runs`
does the work). Registered on `ev.ev_app`; like every command module, only typer and the
standard library at the top."""

from __future__ import annotations

import typer

from cli.commands import common as c
from games.abyss.commands.ev import EXPANSIONS, GAME, ev_app
from sim.core.errors import UserError

# --- forked rollouts ---------------------------------------------------------------------------




#: The default line-up of `ev rollout`: the built-in strategies with different fight rules.
DEFAULT_ROLLOUT_STRATEGIES = "greedy,leviathan_hunter,cautious_explorer,lord_rusher"


@ev_app.command()
@c.user_errors
def rollout(
    players: c.PlayersOption = 4,
    strategies: c.option(str, "--strategies", "Strategies of the games the decision points "
                         "come from; with more names than players, game g seats names g, g+1, "
                         "... (every strategy in every seat).", "A,B,...") = (
        DEFAULT_ROLLOUT_STRATEGIES),
    points: c.option(int, "--points", "Decision points to sample (one per game).") = 10_000,
    replicates: c.option(int, "--replicates", "Rollouts of each choice per decision point.") = 32,
    seed: c.SeedOption = 1,
    rule_points: c.option(int, "--rule-points", "Decision points (the first of --points) that "
                          "also get rule rollouts: the deciding seat switches to a candidate "
                          "fight rule to the end of the game, every candidate on the "
                          "even-numbered games, whose best is the learnt rule; the odd ones "
                          "measure it against the own rules. 0: skip.") = 8000,
    rule_replicates: c.option(int, "--rule-replicates",
                              "Rollouts per candidate rule and point.") = 8,
    verify_blocks: c.option(int, "--verify-blocks", "Check the learnt rule in a tournament of "
                            "this many blocks: each strategy with and without it, every "
                            "combination and seating. 0: skip.") = 2000,
    unpaired_check: c.option(bool, "--unpaired-check/--no-unpaired-check", "Also play the "
                             "continue branch on independent random numbers, to show what common "
                             "random numbers gain (50% more games).") = True,
    report: c.option(bool, "--report/--no-report", "Write the 'Fight or explore?' page.") = True,
    out: c.OutDirOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    threads: c.ThreadsOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Fork real decision points both ways and play them out: the value of fighting."""
    spec = c.game_spec(GAME)
    spec.strategies().use_presets(presets)
    spec.check_players(None, players, EXPANSIONS)
    c.check_seed(seed)
    if points < 2:
        raise UserError(f"--points must be at least 2; got {points}")
    from games.abyss.engine.fork import MAX_REPLICATES

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
    from games.abyss.report.ev_runs import lineup_of, rollout_run

    names, lineup = lineup_of(spec, strategies, players)
    text, out_dir = rollout_run(
        spec, players=players, names=names, lineup=lineup, points=points, replicates=replicates,
        seed=seed, rule_points=rule_points, rule_replicates=rule_replicates,
        verify_blocks=verify_blocks, unpaired_check=unpaired_check, report=report, out=out,
        cards=cards, set_=set_, threads=threads, presets=presets)
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
    players: c.PlayersOption = 4,
    strategies: c.option(str, "--strategies", "The line-up, with at least one search seat (e.g. "
                         "search:rollouts=128); game g seats names g, g+1, ... (every strategy in "
                         "every seat).", "A,B,...") = DEFAULT_SEARCH_STRATEGIES,
    rule: c.option(str, "--rule", "The fight rule to check, as `ev rollout` names them: "
                   "fight_risk=W/36 (fight iff an Ally can damage and continuing risks an attack "
                   "with at least W/36), fight_p=C/36 (fight iff the chance of damage is at least "
                   "C/36), or both.", "RULE") = "fight_risk=6/36",
    games: c.option(int, "--games", "Games to play.") = 200,
    replicates: c.option(int, "--replicates", "Extra rollouts of each option per decision, "
                         "paired across the options (common random numbers): they measure which "
                         "choice does better.") = 32,
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

    spec = c.game_spec(GAME)
    spec.strategies().use_presets(presets)
    spec.check_players(None, players, EXPANSIONS)
    c.check_seed(seed)
    from games.abyss.engine.kernel.record import MAX_EVAL_REPLICATES
    from games.abyss.report.search_check import (
        parse_rule,
    )

    parse_rule(rule)
    if games < 1:
        raise UserError(f"--games must be at least 1; got {games}")
    if not 1 <= replicates < MAX_EVAL_REPLICATES:
        raise UserError(
            f"--replicates must be between 1 and {MAX_EVAL_REPLICATES - 1}; got {replicates}"
        )
    from games.abyss.report.ev_runs import lineup_of, search_run

    _, lineup = lineup_of(spec, strategies, players)
    text, out_dir = search_run(
        spec, players=players, lineup=lineup, rule=rule, games=games, replicates=replicates,
        seed=seed, out=out, cards=cards, set_=set_, threads=threads, presets=presets)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
