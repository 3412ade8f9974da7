"""`abyss-mc tune` keeps a preset what it is named after, makes its preset again from what it
records, and checks its finalists on deals the search never saw (issue 28).

"Tune within the archetype: the parameters a preset sets define it and stay fixed (or on the
archetype's side of the default), the rest are tuned; unconstrained tuning stays available as an
option." "Make every tune reproducible from what it records (the field written out ...) and prove
it: a test reruns one recorded command on a small budget and gets the same preset." "Add a test
that the held-out and re-evaluation deals of a tune differ from its search deals (a tune with the
held-out seed set equal to the search seed must fail it)."
"""

from __future__ import annotations

import json
import shlex
import tomllib

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from reports import tune as T
from reports.sections.tune import MADE_BY, command_options, recorded_commands
from reports.tune import within_archetype
from sim import games

runner = CliRunner()
SMALL = ["--games", "16000", "--candidates", "40", "--reeval-games", "4000",
         "--heldout-games", "4000"]  # fmt: skip
#: A token budget, where only the screened field is read (the screening plays the same games
#: whatever the budget: `reports.runs.tune._screened_field`)
TOKEN = ["--games", "240", "--candidates", "4", "--reeval-games", "60", "--heldout-games", "60"]
#: Hand-written presets of the tiny game's `aim` (keep chance: tests/tiny_game.py): `steady` is
#: weak (knob 5 of the best 13, lean 0, dull), `wobbly` better; `keen` nearly the best.
HAND = """
[steady]
policy = "aim"
knob = 5
style = "dull"

[wobbly]
policy = "aim"
knob = 8
lean = 0.5
style = "sharp"
"""
KEEN = """
[keen]
policy = "aim"
knob = 12
lean = 0.7
style = "sharp"
"""


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """The tiny game, its hand-written presets in a file of their own (`hand`)."""
    import tiny_game

    hand = tmp_path / "hand.toml"
    hand.write_text(HAND)
    monkeypatch.setattr(tiny_game.REGISTRY, "builtin", (hand,))
    tiny_game.REGISTRY.use_presets(None)
    games.register(tiny_game.SPEC)
    yield hand
    games._EXTRA.pop("tiny", None)
    tiny_game.REGISTRY.builtin = ()
    tiny_game.REGISTRY.use_presets(None)


def _tune(args, out):
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result


# --- within the archetype ---------------------------------------------------------------------
def test_the_archetype_rule_per_parameter_kind() -> None:
    """A choice is held; a number set away from the policy's default moves only further that
    way; one set at the default (or at the end of the range on its side) is held; the
    parameters the preset does not set are searched in full."""
    reg = games.get("abyss").strategies()
    space = reg.search_space("heuristic")

    def rules(start):
        return within_archetype(reg, start, "heuristic", space)

    narrowed, held = rules("farmer")
    assert held == {"guild": "= farmer", "guild_bonus": ">= 4"}
    assert narrowed["guild_bonus"] == ("int", 4, 10) and "guild" not in narrowed
    assert {k: v for k, v in narrowed.items() if k != "guild_bonus"} == {
        k: v for k, v in space.items() if k not in ("guild", "guild_bonus")}
    narrowed, held = rules("key_hunter")
    assert held == {"key_weight": ">= 5", "location_min": "<= 5", "recruit_min": ">= 4"}
    assert narrowed["key_weight"] == ("int", 5, 10)
    assert narrowed["location_min"] == ("int", 0, 5)
    narrowed, held = rules("pearl_economist")
    assert held["plot_pearls"] == "= 99" and "plot_pearls" not in narrowed  # never plots
    assert held["pearl_shortfall"] == "= 0" and "pearl_shortfall" not in narrowed  # range end
    narrowed, held = rules("leviathan_hunter")
    assert narrowed["fight_p"] == ("float", 0.0, 0.3) and held["fight_p"] == "<= 0.3"
    narrowed, held = rules("lord_rusher")
    assert held["recruit_min"] == "= 0"  # the default: recruits at every chance
    # a spec's own changes define it too; a policy defines nothing
    assert rules("farmer:fight_p=0.7")[1]["fight_p"] == ">= 0.7"
    assert rules("heuristic") == (space, {})
    creg = games.get("conspiracy").strategies()
    cspace = creg.search_space("heuristic")
    narrowed, held = within_archetype(creg, "pile_raider", "heuristic", cspace)
    assert held == {"pile_min": "<= 15", "draw": "= 1"}
    assert narrowed["pile_min"] == ("int", 0, 15) and "draw" not in narrowed


def test_a_tune_searches_within_the_archetype_and_open_searches_everything(tiny, tmp_path):
    """Every candidate of a tune of `steady` keeps knob >= 5 and style = dull, and the preset
    says so; with --open the search leaves both (the optimum is sharp)."""
    _tune(["tune", "--game", "tiny", "--strategy", "steady", "--players", "2", "--against",
           "best", "--seed", "5", *SMALL], tmp_path / "within")  # fmt: skip
    trace = pd.read_parquet(tmp_path / "within" / "trace.parquet")
    assert (trace["knob"] >= 5).all() and (trace["style"] == "dull").all()
    assert trace["lean"].nunique() > 10  # the free parameter is searched
    config = json.loads((tmp_path / "within" / "manifest.json").read_text())["config"]
    assert config["archetype"] == {"knob": ">= 5", "style": "= dull"}
    preset = tomllib.loads((tmp_path / "within" / "tuned.toml").read_text())["steady_tuned"]
    assert "within its archetype (knob >= 5, style = dull)" in preset["description"]
    assert preset["knob"] >= 5 and preset["style"] == "dull"

    _tune(["tune", "--game", "tiny", "--strategy", "steady", "--players", "2", "--against",
           "best", "--seed", "5", "--open", *SMALL], tmp_path / "open")  # fmt: skip
    trace = pd.read_parquet(tmp_path / "open" / "trace.parquet")
    assert (trace["knob"] < 5).any() and (trace["style"] != "dull").any()
    text = (tmp_path / "open" / "tuned.toml").read_text()
    assert "--open" in recorded_commands(text)[0]
    preset = tomllib.loads(text)["steady_open"]
    assert preset["style"] == "sharp" and "every parameter free (open)" in preset["description"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--strategy", "steady", "--params", "lean,style"], "style define steady"),
        (["--strategy", "aim:knob=0:lean=0.0:style=dull"], "nothing is left to tune"),
    ],
)
def test_a_held_parameter_is_not_searched_without_open(tiny, tmp_path, args, message) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["tune", "--game", "tiny", "--players", "2", "--against", "best",
                                 *args, "--out", str(out)])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert message in result.output and not out.exists()


# --- made again from what it records ----------------------------------------------------------
def test_a_recorded_command_makes_the_same_preset_after_the_presets_changed(tiny, tmp_path):
    """The first tune screens its field (from the hand-written presets) and records it; a better
    hand-written preset is added, which changes what a screening would pick; the recorded
    command, run again as a user would, makes the very same preset, byte for byte."""
    _tune(["tune", "--game", "tiny", "--strategy", "steady", "--players", "3", "--seed", "5",
           *SMALL], tmp_path / "first")  # fmt: skip
    text = (tmp_path / "first" / "tuned.toml").read_text()
    (command,) = recorded_commands(text)
    assert command_options(command)["against"] == "best,wobbly"
    tiny.write_text(HAND + KEEN)  # the built-in presets change (a token budget: the field is read)
    _tune(["tune", "--game", "tiny", "--strategy", "steady", "--players", "3", "--seed", "5",
           *TOKEN], tmp_path / "screened")  # fmt: skip
    field = json.loads((tmp_path / "screened" / "manifest.json").read_text())["config"]
    assert "keen" in field["opponents"]  # a screening now picks another field
    _tune(shlex.split(command)[1:], tmp_path / "again")
    assert (tmp_path / "again" / "tuned.toml").read_text() == text
    manifest = json.loads((tmp_path / "again" / "manifest.json").read_text())
    assert manifest["config"]["recorded_command"] == command
    code = manifest["config"]["code"]
    assert code["source_digest"].startswith("sha256:") and "abyss_mc_version" in code
    assert manifest["card_digest"]
    assert MADE_BY.search(text)["command"] == command


# --- fresh deals ------------------------------------------------------------------------------
@pytest.mark.parametrize("stream, stage", [(T.HELDOUT, "held-out check"),
                                           (T.REEVAL, "re-evaluation")])  # fmt: skip
def test_a_tune_whose_later_stage_replays_the_search_deals_fails(tiny, tmp_path, monkeypatch,
                                                                 stream, stage):  # fmt: skip
    """The held-out check (or the re-evaluation) given the search's seed would replay the
    search's deals: the tune stops before it plays."""
    real = T.derived_seed

    def same(seed, s, index=0):
        return seed if s == stream else real(seed, s, index)

    monkeypatch.setattr(T, "derived_seed", same)
    out = tmp_path / "run"
    args = ["--strategy", "aim", "--players", "2", "--against", "best", "--seed", "5", *SMALL]
    result = runner.invoke(app, ["tune", "--game", "tiny", *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert f"the {stage} would replay deals of the search" in result.output
    assert not out.exists()


def test_the_held_out_and_re_evaluation_deals_differ_from_the_search_deals(
    tiny, tmp_path, monkeypatch
):
    """Every deal a tune plays, recorded as it plays: the search's, the re-evaluation's and the
    held-out check's are three disjoint sets."""
    played: dict[int, set] = {}
    evaluate = T.evaluate

    def recording(problem, specs, *, seed, first_block=0, n_blocks, client=None):
        games_, _ = T.seating_plan(problem.n_players, seed, first_block, n_blocks)
        played.setdefault(seed, set()).update((seed, int(g)) for g in np.unique(games_))
        return evaluate(problem, specs, seed=seed, first_block=first_block, n_blocks=n_blocks,
                        client=client)  # fmt: skip

    monkeypatch.setattr(T, "evaluate", recording)
    _tune(["tune", "--game", "tiny", "--strategy", "aim", "--players", "2", "--against", "best",
           "--seed", "5", *SMALL], tmp_path / "run")  # fmt: skip
    seeds = T.stage_seeds(5)
    assert set(played) == set(seeds.values())
    search, reeval, heldout = (played[seeds[k]] for k in seeds)
    assert len(search) == 16000 // (40 * 2) and len(heldout) == 2000
    assert not (search & reeval) and not (search & heldout) and not (reeval & heldout)


@pytest.mark.slow
def test_a_shipped_tuned_preset_is_made_again_by_its_recorded_command(tmp_path) -> None:
    """"A user who runs the recorded command gets the same numbers": the cheapest shipped tune
    (Conspiracy, 2 players), its command run again as recorded, on its full budget, makes the
    shipped preset byte for byte (from its [table] on: the comments above name the code)."""
    from pathlib import Path

    root = Path(__file__).parents[2]
    shipped = (root / "games" / "conspiracy" / "strategies" / "tuned.toml").read_text()
    blocks = {MADE_BY.search(b)["command"]: b for b in shipped.split("\n\n") if MADE_BY.search(b)}
    command = next(c for c in blocks if command_options(c)["players"] == "2"
                   and "[" in blocks[c])  # fmt: skip
    _tune(shlex.split(command)[1:], tmp_path / "again")
    again = (tmp_path / "again" / "tuned.toml").read_text()
    name = tomllib.loads(blocks[command]).popitem()[0]
    made = f"[{command_options(command)['strategy']}_tuned]"
    mine = again[again.index("\n[") + 1 :].replace(made, f"[{name}]")
    theirs = blocks[command][blocks[command].index("\n[") + 1 :]
    assert mine.strip("\n") == theirs.strip("\n")
