"""What a designer edits or damages by hand (issue 53): every kind of bad input gets one line
naming the problem and a non-zero exit, never a traceback, and leaves no output behind.

Two parts: the cases the issue found (each a kind: card data, `--set`, presets, strategy
strings, learned weights, settings that cannot take effect, sizes, run outputs), run through the
command line; and fuzzing, the files a user hands over damaged at random (truncated anywhere,
bytes flipped), over many seeds, through the one guard of each kind: the loader either reads
the file or refuses it in one line of its own kind, never another exception.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()
DATA = Path(__file__).resolve().parents[2] / "games" / "abyss" / "engine" / "data"
CONSPIRACY = DATA.parents[2] / "conspiracy" / "engine" / "data"


def _cards(tmp: Path, edit=None) -> Path:
    folder = tmp / "cards"
    shutil.copytree(DATA, folder)
    if edit is not None:
        edit(folder)
    return folder


def _move_expansion(folder: Path) -> None:  # an edited expansion file put at the top
    (folder / "expansions" / "leviathan.toml").rename(folder / "leviathan.toml")


def _stray(folder: Path) -> None:  # a copy of a file the game never reads
    (folder / "lords-old.toml").write_text((folder / "lords.toml").read_text())


CASES = {
    # kind: card data
    "another game's card data": (["simulate", "--cards", str(CONSPIRACY)], "another game's"),
    "an expansion file at the top of --cards": (
        ["simulate", "--cards", "{moved}", "--expansions", "leviathan"], "belongs at expansions/"),
    "a stray TOML file in --cards": (["simulate", "--cards", "{stray}"], "not read by the game"),
    # kind: --set
    "--set without =": (["simulate", "--set", "rules.seat_4_pearls"], "no value"),
    "--set of an unknown key": (["simulate", "--set", "rules.seat_44_pearls=1"], "unknown key"),
    # kind: settings that cannot take effect
    "Pearls for a seat no table has": (
        ["simulate", "--players", "4", "--set", "rules.seat_5_pearls=2"], "no table of this run"),
    "the same in a sweep": (
        ["sweep", "--players", "4", "--games", "100", "--set", "rules.seat_5_pearls=1,2"],
        "no table of this run"),
    "the same in a design's knob": (
        ["design", "--players", "4", "--vary", "rules.seat_5_pearls=0..4", "--target",
         "seat_share:4>=0.231"], "no table of this run"),
    "the same in a tournament": (
        ["tournament", "--players", "3,4", "--set", "rules.seat_5_pearls=2"],
        "no table of this run"),
    "a Leviathan rule without Leviathan": (
        ["simulate", "--expansions", "", "--set", "rules.leviathan_20th_token=false"],
        "which this run does not play"),
    "a Leviathan card's field in a base-game sweep": (
        ["sweep", "--expansions", "", "--games", "100", "--set", "leviathan.3.penalty_n=2,4"],
        "which this run does not play"),
    "a Leviathan Lord edited without Leviathan": (
        ["simulate", "--expansions", "", "--set", "lord.intrepid.cost=7"],
        "is not in this run's deck"),
    "the Tamer edited where Leviathan removes her": (
        ["simulate", "--expansions", "leviathan", "--set", "lord.tamer.cost=5"],
        "is not in this run's deck"),
    "a Lord forbidden beyond the deck": (
        ["simulate", "--strategies", "greedy:forbid_lord=60"], "no Lord of this card data"),
    "a Location forbidden beyond the deck": (
        ["simulate", "--strategies", "greedy:forbid_location=90"],
        "no Location of this card data"),
    "the same valued by restricted play": (
        ["restrict", "--strategy", "greedy:forbid_lord=60", "--players", "4"],
        "no Lord of this card data"),
    "the same as a tuned strategy's opponent": (
        ["tune", "--strategy", "greedy", "--players", "4", "--against",
         "farmer:forbid_location=90"], "no Location of this card data"),
    "the same in a design's line-up": (
        ["design", "--players", "4", "--strategies", "greedy:forbid_lord=60,farmer",
         "--vary", "rules.seat_4_pearls=0..4", "--target", "seat_share:4>=0.231"],
        "no Lord of this card data"),
    # kind: presets
    "an empty presets file": (["simulate", "--presets", "{empty}"], "no presets in it"),
    "a presets folder": (["simulate", "--presets", "{folder}"], "a folder, not a file"),
    # kind: strategy strings and weights
    "an unknown archetype": (["simulate", "--strategies", "learned:archetype=nope"],
                             "archetype must be one of"),
    "an empty weights path": (["simulate", "--strategies", "learned:weights=,greedy"],
                              "is empty"),
    "a truncated weights file": (["simulate", "--players", "4", "--strategies",
                                  "learned:weights={weights},greedy"], "damaged or truncated"),
    "a card valuation with another count's weights": (
        ["restrict", "--players", "2", "--blocks", "4", "--strategy", "learned:weights={w4}"],
        "was made for 4 players; this table has 2"),
    "a design's card strategy with another count's weights": (
        ["design", "--players", "2", "--card-strategy", "learned:weights={w4}", "--vary",
         "rules.first_player_pearls=0..6", "--target", "card_value:lord.jailer<=0.5"],
        "was made for 4 players; this table has 2"),
    "the search's rollout weights of another count": (
        ["simulate", "--players", "2", "--strategies",
         "search:rollout_policy=learned:rollout_weights={w4}:rollouts=4,greedy"],
        "was made for 4 players; this table has 2"),
    # kind: outputs and sizes
    "an empty --out": (["simulate", "--out", ""], "--out names the current folder"),
    "a run of 10^12 games": (["simulate", "--games", "1000000000000"], "add --yes to go on"),
    "a tournament of 10^8 blocks": (["tournament", "--blocks", "100000000"],
                                    "add --yes to go on"),
    "a tournament's card values of 10^7 blocks": (
        ["tournament", "--report", "--players", "4", "--blocks", "10", "--card-blocks", "10000000",
         "--threads", "2"], "this tournament would take about"),
    # a size the heuristics' rate would pass: the search's rollouts cost 2,000 times a seat's
    "50,000 games of a search seat": (
        ["simulate", "--games", "50000", "--threads", "2", "--strategies",
         "search,greedy,greedy,greedy"],
        "add --yes to go on"),
    "the reference engine's 2,000,000 games": (
        ["simulate", "--games", "2000000", "--engine", "reference", "--threads", "2"],
        "on 2 core(s)"),  # (on forked workers, issue 54)
    "a tuning of 10^10 games": (["tune", "--strategy", "farmer", "--games", "10000000000",
                                 "--threads", "2"],
                                "this tuning would take about"),
    "a card valuation of 10^7 blocks": (["restrict", "--strategy", "farmer", "--blocks",
                                         "10000000", "--threads", "2"],
                                        "this card valuation would take about"),
    "a learning run of 10^7 search games an iteration": (
        ["learn", "--games", "10000000"], "this learning run would take about"),
    "a design search of 10^6 candidates": (
        ["design", "--vary", "rules.seat_4_pearls=0..4", "--target", "seat_share:4>=0.231",
         "--candidates", "1000000", "--threads", "2"], "this design search would take about"),
    "tune for a game without strategies (before: a traceback)": (
        ["tune", "--game", "wilds", "--strategy", "greedy"], "Leviathan Wilds has no strategies"),
    # Wilds: its rates are per episode (before: none, and any run started without a word)
    "a Wilds run of 10^9 episodes per setting": (
        ["simulate", "--game", "wilds", "--games", "1000000000"], "of memory"),
    "a Wilds sweep of 10^9 episodes a point": (
        ["sweep", "--game", "wilds", "--games", "1000000000", "--set", "climber.ap_per_turn=4,6"],
        "of memory"),
}  # fmt: skip


@pytest.fixture
def files(tmp_path):
    (tmp_path / "empty.toml").write_text("")
    (tmp_path / "folder").mkdir()
    from games.abyss.strategies.learned import builtin_weights

    blob = builtin_weights(4).read_bytes()
    (tmp_path / "w.npz").write_bytes(blob[: len(blob) // 3])
    moved = _cards(tmp_path / "m", _move_expansion)
    stray = _cards(tmp_path / "s", _stray)
    return {"empty": tmp_path / "empty.toml", "folder": tmp_path / "folder",
            "weights": tmp_path / "w.npz", "moved": moved, "stray": stray,
            "w4": builtin_weights(4)}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_input_is_one_line_and_leaves_nothing(tmp_path, files, case, monkeypatch):
    from reports.runs import setup

    monkeypatch.setattr(setup, "_available_memory", lambda: 8 * 10**9)  # (the same anywhere)
    args, said = CASES[case]
    args = [a.format(**files) for a in args]
    out = tmp_path / "out"
    if "--out" not in args:
        args += ["--out", str(out)]
    result = runner.invoke(app, args)
    text = result.output.strip()
    assert result.exit_code not in (0, None), (case, text)
    assert "Traceback" not in text and result.exception is None or isinstance(
        result.exception, SystemExit), (case, text)
    lines = [line for line in text.splitlines() if not line.startswith(("the abyss fast path",
                                                                        "compiling", "  still"))]
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], (case, text)
    assert not out.exists() and not any(tmp_path.glob(".out*")), "nothing half-written is left"


def _damaged(blob: bytes, rng: np.random.Generator) -> bytes:
    """`blob` cut at a random length, or with a few random bytes changed."""
    if rng.random() < 0.5:
        return blob[: int(rng.integers(0, len(blob)))]
    data = bytearray(blob)
    for at in rng.integers(0, len(data), int(rng.integers(1, 6))):
        data[at] = int(rng.integers(0, 256))
    return bytes(data)


@pytest.mark.parametrize("name", ["lords.toml", "rules.toml", "game.toml",
                                  "expansions/leviathan.toml"])  # fmt: skip
def test_damaged_card_data_loads_or_is_one_line(tmp_path, name):
    from games.abyss.engine.cards.loader import load_cards
    from sim.core.carddata import CardDataError

    folder = _cards(tmp_path)
    blob = (DATA / name).read_bytes()
    rng = np.random.default_rng(53)
    refused = 0
    for _ in range(60):
        (folder / name).write_bytes(_damaged(blob, rng))
        try:
            load_cards(folder, expansions=("leviathan",))
        except CardDataError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(folder) in str(exc)
    assert refused > 0


def test_damaged_presets_load_or_are_one_line(tmp_path):
    from games.abyss.strategies import REGISTRY
    from strategies.registry import StrategyError

    blob = (DATA.parents[1] / "strategies" / "presets.toml").read_bytes()
    rng = np.random.default_rng(530)
    path, refused = tmp_path / "p.toml", 0
    for _ in range(100):
        path.write_bytes(_damaged(blob, rng))
        try:
            REGISTRY.read_presets(path)
        except StrategyError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(path) in str(exc)
    assert refused > 0


def test_damaged_weights_load_or_are_one_line(tmp_path):
    from games.abyss.engine import policy_params as P
    from games.abyss.strategies.learned import builtin_weights
    from strategies.learned import load_weights
    from strategies.registry import StrategyError

    blob = builtin_weights(4).read_bytes()
    rng = np.random.default_rng(5300)
    path, refused = tmp_path / "w.npz", 0
    for _ in range(100):
        path.write_bytes(_damaged(blob, rng))
        try:
            load_weights(path, "abyss", P.LEARNED_DECISIONS, P.FEATURE_NAMES)
        except StrategyError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(path) in str(exc)
    assert refused > 0


def test_a_damaged_run_table_is_one_line(tmp_path):
    """`report` on a run whose games.parquet was cut short: one line naming the file."""
    out = tmp_path / "run"
    assert runner.invoke(app, ["simulate", "--games", "200", "--out", str(out)]).exit_code == 0
    rng = np.random.default_rng(5)
    table = out / "games.parquet"
    blob = table.read_bytes()
    refused = 0
    for _ in range(10):
        table.write_bytes(_damaged(blob, rng))
        result = runner.invoke(app, ["report", str(out)])
        if result.exit_code == 0:
            continue  # a flipped byte a table's checks let through: read as written
        text = result.output.strip()
        assert result.exit_code == 2 and text.count("\n") == 0, text
        assert text.startswith("error: ") and "games.parquet" in text
        refused += 1
    assert refused > 0
    table.write_bytes(blob)
    aggregates = out / "aggregates.npz"  # the other file a report reads
    aggregates.write_bytes(aggregates.read_bytes()[:500])
    result = runner.invoke(app, ["report", str(out)])
    text = result.output.strip()
    assert result.exit_code == 2 and text.count("\n") == 0 and "damaged or truncated" in text


def test_a_byte_order_mark_is_read(tmp_path):
    """A file saved with a UTF-8 byte order mark (some editors add one) reads as without it;
    before, "invalid TOML: Invalid statement (at line 1, column 1)"."""
    from games.abyss.engine.cards.loader import load_cards
    from games.abyss.strategies import REGISTRY

    bom = b"\xef\xbb\xbf"
    folder = _cards(tmp_path)
    (folder / "rules.toml").write_bytes(bom + (DATA / "rules.toml").read_bytes())
    assert load_cards(folder).digest == load_cards(DATA).digest
    presets = tmp_path / "p.toml"
    presets.write_bytes(bom + b'[mine]\npolicy = "greedy"\nbuy_min = 3\n')
    assert list(REGISTRY.read_presets(presets)) == ["mine"]


def test_the_searchs_learned_rollouts_play_the_tables_weights():
    """`search:rollout_policy=learned` models the seats with the weights of the table's count
    (before: the 4-player weights at every table)."""
    from games.abyss.engine import policy_params as P
    from games.abyss.strategies import REGISTRY

    for n in (2, 3, 5):
        search = REGISTRY.make_policies(["search:rollout_policy=learned"], n)[0]
        learned = REGISTRY.make_policies(["learned"], n)[0]
        rollout = search.params()[P.ROLLOUT_PARAMS : P.ROLLOUT_PARAMS + P.N_SLOTS]
        assert np.array_equal(rollout, learned.params()[: P.N_SLOTS]), n


def test_a_run_too_large_for_memory_is_one_line(tmp_path, monkeypatch):
    """Issue 53: a huge run that ran out of memory raised a `MemoryError` traceback. Now one
    line that says so and what to do, exit 1, and no output."""
    import reports.runs.setup as S

    def no_memory(seed):
        raise MemoryError

    monkeypatch.setattr(S, "check_seed", no_memory)
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", "--games", "10", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        "error: not enough memory for this run: make it smaller (fewer games, players or "
        "points), or run it in parts"]
    assert not out.exists()


def test_a_tunes_field_is_made_for_the_whole_table():
    """`tune --against learned` at 2 players once refused the 2-player weights ("made for 2
    players; this table has 1") and the built-in ones ("no built-in weights for 1 players"): the
    field was made for the opponents' seats, not the table."""
    from reports.runs.options import TuneOptions
    from reports.runs.tune import checked

    two = DATA.parents[1] / "strategies" / "learned" / "learned_2p.npz"
    for against in ("learned", f"learned:weights={two}"):
        setup = checked(TuneOptions(strategy="farmer", players=2, against=against))
        assert setup.opponents == [against]  # checked, not refused


def test_a_designs_re_tuning_counts_in_its_estimate(tmp_path, monkeypatch):
    """A small search whose re-tuning of its finalist's players is the long part asks first
    (`reports.runs.design.most_games`: every round of finalists, the re-tunes' candidates and
    finalists, the checks). Before, `--retune-candidates 1000000` with 8 candidates started and
    was still running 120 s later; here nothing may play (a search started fails at once)."""
    from reports.runs import design

    def played(*args, **kwargs):
        raise AssertionError("the design search started")

    monkeypatch.setattr(design, "run_design", played)
    out = tmp_path / "out"
    result = runner.invoke(app, ["design", "--vary", "rules.seat_4_pearls=0..4", "--target",
                                 "seat_share:4>=0.231", "--candidates", "8", "--blocks", "20",
                                 "--retune-candidates", "1000000", "--threads", "2", "--out",
                                 str(out)])  # fmt: skip
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("error: this design search would take about"), lines
    assert not out.exists()

