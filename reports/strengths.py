"""Play strengths (issue 22): every headline verdict computed with more than one strength of play,
so that a designer sees whether it is about the game or about the bots.

A tournament with `--report` also plays, in the same run directory,
- the *tuned* tier: at each player count a second tournament among the tuned versions made for
  that count (`<preset>_tuned_<N>p`, `abyss-mc tune`) of the line-up's presets (the built-in
  line-up: every tuned preset), with the same blocks, design and seed, in `TUNED_DIR` (a run
  directory of its own, that `games.abyss.report.balance.RunData` reads); the report names the
  strategies without one (`tuned_note`);
- where the game has a learned player with built-in weights for the count (docs/learned.md), the
  *learned* tier: at each such count a tournament of the tuned tier's archetypes, each played at
  the learned strength (`learned:archetype=X`: the archetype's own decisions, the learned
  player's everywhere else; its tuned version where that had the higher mean on the deals that
  chose,
  `LearnedPlayer.archetype_versions`), in `LEARNED_DIR`: the same approaches as the other
  columns, so that "best strategy" asks the same question in each;
- with the built-in line-up, the *card values* of each tier (restricted play,
  `reports.restrict`): the tier's best strategy at 4 players (or the nearest count played)
  forbidden each card in turn, in `CARDS_DIR/<tier>/`;
- with `--strengths search`, where the game has a search player, also the *search* tier: at each
  player count a tournament among search players whose rollouts model the `CONTENDERS` best
  approaches of that count, played at the learned strength where the learned tier played it (else
  the best tuned presets), in `strengths/search/` (docs/restricted-play.md says what it costs and
  why its card values and fight rule are not measured).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sim.core.errors import UserError
from sim.core.runs import read_table

HAND, TUNED, LEARNED, SEARCH = "hand-written", "tuned", "learned", "search"
TUNED_DIR = Path("strengths") / TUNED
LEARNED_DIR = Path("strengths") / LEARNED
SEARCH_DIR = Path("strengths") / SEARCH
#: the tiers a tournament may play (`--strengths`), weakest first; each includes those before
LEVELS = ("none", TUNED, LEARNED, SEARCH)
#: What each tier is called in the report.
TITLES = {HAND: "hand-written presets", TUNED: "tuned presets", LEARNED: "learned archetypes",
          SEARCH: "search player", "as run": "strategies as run"}  # fmt: skip
#: The search tier: how many of the best approaches its search players model, its blocks and
#: rollouts per decision (docs/restricted-play.md: the measured cost).
CONTENDERS, SEARCH_BLOCKS, SEARCH_ROLLOUTS = 3, 20, 32
CARDS_DIR = Path("card_values")
#: The player count whose card values are measured, if played (the game's usual table).
CARD_PLAYERS = 4

_TUNED = re.compile(r"_tuned(_\d+p)?$")
#: a tuned preset of either kind (`_tuned_`: within its archetype; `_open_`: unconstrained)
_DERIVED = re.compile(r"_(tuned|open)(_\d+p)?$")
_MODEL = re.compile(r":rollout_policy=([^:]+)")
_ARCHETYPE = re.compile(r":archetype=([^:]+)")
_ROLLOUT_ARCHETYPE = re.compile(r":rollout_archetype=([^:]+)")


def title(tier: str) -> str:
    return TITLES.get(tier, tier)


def family(name: str) -> str:
    """The hand-written preset a strategy comes from: `pearl_economist_tuned_4p` and
    `pearl_economist_open_4p` -> `pearl_economist`; a search player's is its rollouts' model's
    (`search:rollout_policy=farmer_tuned_4p:rollouts=32` and
    `search:rollout_policy=learned:rollout_archetype=farmer:rollouts=32` -> `farmer`); an
    archetype played at the learned strength is its archetype (`learned:archetype=farmer` ->
    `farmer`)."""
    model = _MODEL.search(name)
    if name.split(":")[0] == SEARCH and model:
        archetype = _ROLLOUT_ARCHETYPE.search(name)
        if model.group(1) == LEARNED and archetype and archetype.group(1) != "none":
            return archetype.group(1)
        return family(model.group(1))
    archetype = _ARCHETYPE.search(name)
    if name.split(":")[0] == LEARNED and archetype and archetype.group(1) != "none":
        return archetype.group(1)
    return _DERIVED.sub("", name.split(":")[0])


def is_tuned(name: str) -> bool:
    return bool(_TUNED.search(name.split(":")[0]))


def tuned_versions(registry, names, n_players: int) -> dict[str, str | None]:
    """Each strategy of a line-up -> its tuned version for `n_players` players
    (`<preset>_tuned_<N>p`, built in or in the user's `--presets`), or None: a policy, a strategy
    with parameters of its own, or a preset not tuned for that count."""
    presets = registry.presets()
    found = {name: f"{family(name)}_tuned_{n_players}p" for name in names}
    return {name: t if ":" not in name and t in presets else None for name, t in found.items()}


def tuned_lineup(registry, names, n_players: int) -> list[str]:
    """The tuned tier at `n_players`: the tuned versions of the line-up's strategies, in the
    presets' file order (the built-in line-up: every tuned preset of that count); empty when
    fewer than two exist or they are the line-up itself."""
    versions = set(tuned_versions(registry, names, n_players).values()) - {None}
    lineup = [p for p in registry.presets() if p in versions]
    return lineup if len(lineup) >= 2 and set(lineup) != set(names) else []


def tuned_note(versions: dict) -> str | None:
    """One line on the strategies without a tuned version (`versions`: the manifest's
    `tuned_versions`, player count -> strategy -> its tuned version or None), or None."""
    counts = sorted(versions, key=int)
    names = list(versions[counts[0]])
    missing = {name: [n for n in counts if versions[n].get(name) is None] for name in names}
    missing = {name: ns for name, ns in missing.items() if ns}
    if not missing:
        return None
    listed = ", ".join(f"`{name}`" + ("" if len(ns) == len(counts) else
                                      f" (at {_counts(ns)} players)")
                       for name, ns in missing.items())  # fmt: skip
    text = ("Without a tuned version (`<preset>_tuned_<N>p`), so not in the tuned presets' "
            f"tournament: {listed}.")  # fmt: skip
    alone = [n for n in counts if sum(v is not None for v in versions[n].values()) < 2]
    if alone:
        text += (f" At {_counts(alone)} players fewer than two strategies have one: no tuned "
                 "tournament there, and its verdicts have one play strength.")  # fmt: skip
    return text


def _counts(counts) -> str:
    counts = [str(n) for n in counts]
    return counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " and " + counts[-1]


def card_players(counts) -> int:
    return CARD_PLAYERS if CARD_PLAYERS in counts else min(counts, key=lambda n: abs(n - 4))


def ranked(seats, n_players: int) -> list[str]:
    """The strategies by win share at `n_players`, best first (never the random policy)."""
    df = seats[seats["n_players"] == n_players] if "n_players" in seats.columns else seats
    rates = df.groupby(df["strategy"].astype(str), observed=True)["win"].mean()
    rates = rates[[family(s) != "random" for s in rates.index]]
    return [str(s) for s in rates.sort_values(ascending=False, kind="stable").index]


def best_of(seats, n_players: int) -> str:
    """The strategy with the highest win share at `n_players` (never the random policy)."""
    return ranked(seats, n_players)[0]


def learned_lineup(registry, tuned: list[str], n_players: int) -> list[str]:
    """The learned tier at `n_players`: each archetype of the tuned tier's line-up there
    (`tuned`) at the learned strength (`LearnedPlayer.archetype_versions`), in the same order;
    empty when the game has no learned player, no weights or no choice for that count, or fewer
    than two archetypes have a version."""
    from strategies.registry import StrategyError

    policy = registry.policies.get(LEARNED)
    if policy is None:
        return []
    try:
        registry.make_policies([LEARNED], n_players)
    except StrategyError:
        return []
    versions = policy.archetype_versions(n_players)
    lineup = [versions[family(s)] for s in tuned if family(s) in versions]
    return lineup if len(lineup) >= 2 else []


def plays(strengths: str, tier: str) -> bool:
    """Whether `--strengths strengths` (resolved) plays `tier`."""
    return LEVELS.index(strengths) >= LEVELS.index(tier)


def search_lineup(tuned_seats, n_players: int, rollouts: int, learned_seats=None) -> list[str]:
    """The search tier at `n_players`: a search player for each of the CONTENDERS best
    approaches there, its rollouts played by that approach (every seat's model of every player):
    as the learned tier plays it where that tier played this count (`learned_seats`; at 4 and 5
    players learned rollouts made the search stronger, on fresh deals too, and weaker on average
    at no count measured: docs/learned.md "The search tier"), else its tuned preset."""
    seats = tuned_seats
    if learned_seats is not None and (learned_seats["n_players"] == n_players).any():
        seats = learned_seats
    return [f"{SEARCH}:rollout_policy={rollout_model(p)}:rollouts={rollouts}"
            for p in ranked(seats, n_players)[:CONTENDERS]]  # fmt: skip


def rollout_model(strategy: str) -> str:
    """What a search's rollouts play to model `strategy`: an archetype at the learned strength
    (`learned:archetype=X`) -> `learned:rollout_archetype=X` (the search's own parameter); a
    preset as it is."""
    archetype = _ARCHETYPE.search(strategy)
    if strategy.split(":")[0] == LEARNED and archetype:
        return f"{LEARNED}:rollout_archetype={archetype.group(1)}"
    return strategy


def save_card_values(out: Path, df, *, strategy: str, players: int, unrestricted: float,
                     blocks: int, **timed) -> None:  # fmt: skip
    """`impact.parquet` and `meta.json` of one tier's card values (`timed`: a time-budgeted
    run's looks taken and why it stopped, `reports.budget`)."""
    from sim.core.runs import atomic_write_text, write_parquet

    out.mkdir(parents=True, exist_ok=True)
    write_parquet(df, out / "impact.parquet")
    meta = {"strategy": strategy, "players": players, "unrestricted": unrestricted,
            "blocks": blocks, **timed}  # fmt: skip
    atomic_write_text(out / "meta.json", json.dumps(meta, indent=1) + "\n")


def load_card_values(run_dir: Path, tier: str):
    """(impact frame, meta) of one tier's card values, or None."""

    d = Path(run_dir) / CARDS_DIR / tier
    if not (d / "impact.parquet").is_file() or not (d / "meta.json").is_file():
        return None
    return read_table(d / "impact.parquet"), json.loads((d / "meta.json").read_text())


def tier_manifest(parent_config: dict, tier: str, lineups: dict[int, list[str]],
                  n_games: int, pair_looks: dict | None = None) -> dict:  # fmt: skip
    """The manifest of a tier's run directory: the parent's card data and options (and, on a
    time budget, each player count's looks: `reports.budget.Looks.config`)."""
    counts = sorted(lineups)
    config = {**parent_config, "command": "tournament", "strength": tier,
              "strategies": sorted({s for names in lineups.values() for s in names}),
              "lineups": {str(n): names for n, names in lineups.items()},
              "n_players": counts[0] if len(counts) == 1 else counts,
              "n_games": n_games}  # fmt: skip
    if pair_looks:
        config["pair_looks"] = pair_looks
    else:
        config.pop("pair_looks", None)  # (the parent's)
    return {"config": config}


def resolve_options(spec, strengths: str, card_blocks: int | None, report: bool, *,
                    builtin: bool, minutes: float | None = None):  # fmt: skip
    """`--strengths` and `--card-blocks` resolved (one of `LEVELS`; a number of blocks): with
    `--report` the tuned tier and, where the game has one, the learned tier are played for any
    line-up, the card values only for the built-in one (`builtin`)."""
    if strengths not in ("auto", *LEVELS):
        raise UserError(f"--strengths must be auto, tuned, learned, search or none; "
                        f"got {strengths!r}")  # fmt: skip
    has_learned = LEARNED in spec.strategies().policies
    if strengths == "auto":
        strengths = (LEARNED if has_learned else TUNED) if report else "none"
    if strengths == LEARNED and not has_learned:
        raise UserError(f"--strengths learned: {spec.title} has no learned player yet; "
                        "use --strengths tuned")  # fmt: skip
    if strengths == "search" and "search" not in spec.strategies().policies:
        raise UserError(f"--strengths search: {spec.title} has no search player yet; "
                        "use --strengths tuned")  # fmt: skip
    if minutes is not None:
        if not report or not minutes > 0:
            raise UserError(f"--minutes budgets the report's undecided verdicts: it needs --report "
                            f"and a positive number; got {minutes}")  # fmt: skip
        card_blocks = card_blocks or CARD_BLOCKS  # (a budget plays them for any line-up)
    if card_blocks is None:
        card_blocks = CARD_BLOCKS if report and builtin else 0
    if card_blocks < 0 or card_blocks == 1:
        raise UserError(f"--card-blocks must be 0 or at least 2; got {card_blocks}")
    if card_blocks and spec.report().restrictions is None:
        card_blocks = 0  # a game without restricted play yet
    return strengths, card_blocks


#: Deals per card of the report's restricted play (docs/restricted-play.md: what it can tell).
CARD_BLOCKS = 250
