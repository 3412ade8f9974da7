"""Monte Carlo analyses of the warped crystals (Leviathan Wilds: Shattered Peak) and their report.

What does warping do to the effort of breaking crystals? For each strike value (1-4 fixed, and
the climber's own mix), episodes of the placeholder scenario are played on the fast path; per
crystal: strikes and turns to break it, warp cards drawn, where it ended. The warp deck's
composition is varied (as given; diagrams only; no diagrams; short moves; long moves; half the
diagrams moving the climber) on the same seeds. ALL DATA IS PLACEHOLDER (components.md 4.2): the
figures show what the rules do with it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from games.wilds.engine import kernel as KN
from games.wilds.engine.cards import WARP_CLIMBER

STRIKE_SETTINGS = (0, 1, 2, 3, 4)  # 0: the climber's own mix of strike values
#: Episodes a run plays per `--games`: each strike setting, and each warp deck but the given one
#: (`run_analysis`; `deck_variants` makes five)
RUNS_PER_EPISODE = len(STRIKE_SETTINGS) + 5
#: Episodes per call of the compiled loop: about a third of a second on one core, so a Ctrl-C or
#: SIGTERM (which Python handles only between calls) stops a run within a second
CHUNK_EPISODES = 50_000


def local_runner(t, seed: int, games: np.ndarray, strike_value: int = 0):
    """`run_episodes` in chunks of `CHUNK_EPISODES`, the run's interrupt checked between them:
    the same arrays as one call (an episode is a pure function of (seed, index)). The arrays are
    made first, whole, so a run too large for memory fails at once, not after minutes."""
    from sim.core.interrupts import raise_if_interrupted

    n = len(games)
    out_crystals = np.empty((n, t.n_crystals, KN.N_CFIELDS), dtype=np.int64)
    out_games = np.empty((n, 3), dtype=np.int64)
    for first in range(0, n, CHUNK_EPISODES):
        raise_if_interrupted()
        part = slice(first, first + CHUNK_EPISODES)
        out_crystals[part], out_games[part] = KN.run_episodes(t, seed, games[part], strike_value)
    raise_if_interrupted()
    return out_crystals, out_games


def setting_name(value: int) -> str:
    return "mix" if value == 0 else f"strike {value}"


def episodes_frame(t, seed: int, n: int, strike_value: int, deck: str = "as given",
                   run=local_runner):  # fmt: skip
    """One row per (episode, crystal) of n episodes (`run`:
    `local_runner`, or the same on a Dask cluster, `distributed_runner`)."""
    out_crystals, out_games = run(t, seed, np.arange(n), strike_value)
    m = t.n_crystals
    # The climber goes for the crystals in the data's order, so crystal i is its target from the
    # turn crystal i-1 broke (turn 1 for the first): the turns spent on it count both ends.
    broken_turn = out_crystals[:, :, KN.C_TURN]
    started = np.concatenate([np.ones((n, 1), dtype=np.int64), broken_turn[:, :-1]], axis=1)
    turns_spent = np.where(broken_turn > 0, broken_turn - started + 1, 0)
    frame = pd.DataFrame(
        {
            "episode": np.repeat(np.arange(n), m),
            "crystal": np.tile(np.arange(m), n),
            "setting": setting_name(strike_value),
            "deck": deck,
            "warped": out_crystals[:, :, KN.C_WARPED].ravel().astype(bool),
            "broken": out_crystals[:, :, KN.C_BROKEN].ravel().astype(bool),
            "strikes": out_crystals[:, :, KN.C_STRIKES].ravel(),
            "warps": out_crystals[:, :, KN.C_WARPS].ravel(),
            "turn_broken": broken_turn.ravel(),
            "turns_spent": turns_spent.ravel(),
            "row": out_crystals[:, :, KN.C_ROW].ravel(),
            "col": out_crystals[:, :, KN.C_COL].ravel(),
            "episode_turns": np.repeat(out_games[:, 0], m),
        }
    )
    return frame


def deck_variants(t) -> dict[str, object]:
    """The warp deck as given and five variants of it (same number of cards)."""
    moves, regains, targets = t.warp_move.copy(), t.warp_regain.copy(), t.warp_target.copy()
    diagrams = regains == 0
    out = {"as given": t}
    # diagrams only: each non-diagram card becomes a copy of a diagram (cycling through them)
    only, only_targets = moves.copy(), targets.copy()
    if diagrams.any():
        k = int((~diagrams).sum())
        only[~diagrams] = np.resize(moves[diagrams], (k, 2))
        only_targets[~diagrams] = np.resize(targets[diagrams], k)
    out["diagrams only"] = dataclasses.replace(
        t, warp_move=only, warp_regain=np.zeros_like(regains), warp_target=only_targets
    )
    out["no diagrams"] = dataclasses.replace(
        t, warp_move=np.zeros_like(moves), warp_regain=np.ones_like(regains)
    )
    out["1-space moves"] = dataclasses.replace(t, warp_move=np.sign(moves).astype(moves.dtype))
    out["3-space moves"] = dataclasses.replace(
        t, warp_move=(np.sign(moves) * 3).astype(moves.dtype)
    )
    # climber diagrams: every other diagram (the 1st, 3rd, ...) moves the climber instead
    climber = targets.copy()
    climber[np.flatnonzero(diagrams)[::2]] = WARP_CLIMBER
    out["climber diagrams"] = dataclasses.replace(t, warp_target=climber)
    return out


def run_analysis(t, seed: int, n: int, run=local_runner) -> pd.DataFrame:
    """`RUNS_PER_EPISODE` x n episodes: every strike setting, then every other warp deck."""
    parts = [episodes_frame(t, seed, n, v, run=run) for v in STRIKE_SETTINGS]
    for name, variant in deck_variants(t).items():
        if name != "as given":
            parts.append(episodes_frame(variant, seed, n, 0, deck=name, run=run))
    return pd.concat(parts, ignore_index=True)


def distributed_runner(client, chunk_size: int | None = None):
    """`run_episodes` on a Dask cluster: chunks of episodes on the workers, joined in episode
    order; an episode is a pure function of (seed, index), so the results are the local ones."""
    from sim.core.dask_backend import map_chunks

    def run(t, seed: int, games: np.ndarray, strike_value: int):
        parts = map_chunks(client, _episode_chunk, len(games), chunk_size, t, seed,
                           np.asarray(games), strike_value)  # fmt: skip
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))

    return run


def _episode_chunk(first: int, n: int, t, seed: int, games: np.ndarray, strike_value: int):
    return KN.run_episodes(t, seed, games[first : first + n], strike_value)


def effort(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean strikes and turns to break, with 95% t intervals over episodes, and the share of
    crystals broken."""
    rows = []
    for key, part in frame.groupby(by, sort=False):
        broken = part[part["broken"]]
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        for col in ("strikes", "turns_spent", "warps"):
            v = broken[col].to_numpy(dtype=float)
            half = 1.96 * v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else math.nan
            row[col] = v.mean() if len(v) else math.nan
            row[f"{col}_half"] = half
        row["broken_share"] = float(part["broken"].mean())
        row["crystals"] = len(part)
        rows.append(row)
    return pd.DataFrame(rows)


def build_report(frame: pd.DataFrame, t, command: str):
    from reports.render.report import Report, new_figure

    n = frame["episode"].nunique()
    report = Report(
        "Warped crystals: what warping does to the effort of breaking them",
        f"Leviathan Wilds: Shattered Peak, {n:,} episodes per setting; ALL DATA IS PLACEHOLDER",
    )
    about = report.section("About these numbers")
    about.note(
        "The map, the crystals, the warp deck and the climber are PLACEHOLDER data "
        "(games/wilds/engine/data/wilds.toml; no source gives the real ones). The rules are the "
        "seed text's: the strike value against a warped crystal is capped at 2; if it does not "
        "break, a warp card is drawn; a diagram moves it, as far as it can at the map's edge, and "
        "from an open space it snaps to the closest non-open space."
    )
    about.paragraph(
        f"Each episode: one climber clears the map's {t.n_crystals} crystals, "
        f"{t.ap_per_turn} AP a turn. Means with 95% t intervals over episodes. Command: "
        f"`{command}`"
    )
    main = frame[frame["deck"] == "as given"]
    by_setting = effort(main, ["setting", "warped"])
    sec = report.section("Strikes and turns, warped against plain")
    caption = (
        "Per crystal broken: strikes, turns spent on it (from the turn the climber went for it "
        "to the turn it broke, both counted; walking included), warps (95% half-widths)"
    )
    sec.table(by_setting, caption=caption, float_format="{:.2f}")
    for col, title in (("strikes", "strikes to break"), ("turns_spent", "turns spent on it")):
        fig = new_figure((7, 3.6))
        ax = fig.add_subplot()
        settings = list(dict.fromkeys(main["setting"]))
        x = np.arange(len(settings))
        for k, warped in enumerate((False, True)):
            part = by_setting[by_setting["warped"] == warped].set_index("setting").reindex(settings)
            ax.bar(x + (k - 0.5) * 0.38, part[col], 0.38, yerr=part[f"{col}_half"], capsize=3,
                   label="warped" if warped else "plain")  # fmt: skip
        ax.set_xticks(x, settings)
        ax.set_ylabel(title)
        ax.legend()
        sec.figure(fig, f"wilds-{col}", f"Mean {title} per crystal, warped and plain (95% CI)")
    dist = report.section("Distribution of strikes and turns")
    counts = (
        main.groupby(["setting", "warped"])["strikes"].value_counts(normalize=True).rename("share")
    ).reset_index()
    caption = "Share of crystals broken in each number of strikes"
    dist.table(counts.sort_values(["setting", "warped", "strikes"]), caption=caption,
               float_format="{:.3f}")  # fmt: skip
    turns = (
        main.groupby(["setting", "warped"])["turns_spent"]
        .value_counts(normalize=True)
        .rename("share")
    ).reset_index()
    dist.table(turns.sort_values(["setting", "warped", "turns_spent"]),
               caption="Share of crystals broken in each number of turns spent on them",
               float_format="{:.3f}")  # fmt: skip
    heat = report.section("Where warped crystals end up")
    warped = main[main["warped"] & (main["setting"] == "mix")]
    grid = np.zeros(t.terrain.shape)
    np.add.at(grid, (warped["row"].to_numpy(), warped["col"].to_numpy()), 1)
    fig = new_figure((6, 5))
    ax = fig.add_subplot()
    shown = np.where(t.terrain == 0, np.nan, grid / max(1, len(warped)))
    image = ax.imshow(shown, cmap="viridis")
    for i in range(t.n_crystals):
        if t.crystal_warped[i]:
            ax.plot(t.crystal_col[i], t.crystal_row[i], "r+", markersize=12)
    ax.set_title("warped crystals breaking here (share; +: start)", fontsize=9)
    fig.colorbar(image, ax=ax)
    heat.figure(fig, "wilds-heatmap", "Where warped crystals break (the climber's own strikes)")
    deck = report.section("The warp deck's composition")
    variants = effort(frame[frame["setting"] == "mix"], ["deck", "warped"])
    deck.paragraph(
        "Variants: diagrams only (non-diagram cards become diagrams), no diagrams (every card "
        "regains 1 HP), 1-space and 3-space moves (the same directions), climber diagrams (every "
        "other diagram moves the climber who drew it, as far as it can on the map, without "
        "snapping)."
    )
    deck.table(variants, caption="Effort per crystal under each warp deck (same seeds)",
               float_format="{:.2f}")  # fmt: skip
    return report
