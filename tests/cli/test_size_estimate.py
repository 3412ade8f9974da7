"""The estimate before a long run (issue 53: "Before a run that would take more than an hour or
more than a tenth of the free disk: one line with the estimate"): it counts what a seat costs,
the search's rollouts and the reference engine included, not only the heuristics' rate."""

from __future__ import annotations

import pytest

from reports.runs.setup import check_size, seat_seconds
from sim import games
from sim.core.errors import UserError


@pytest.fixture(scope="module")
def abyss():
    spec = games.get("abyss")
    make = spec.strategies().make_policy
    return spec, make("greedy"), make("search"), make("search:rollouts=128")


LEVIATHAN = ("leviathan",)


def test_a_search_seat_costs_its_rollouts(abyss):
    spec, greedy, search, search128 = abyss
    heuristic = seat_seconds(spec, 4, [greedy] * 4)
    one_search = seat_seconds(spec, 4, [search, greedy, greedy, greedy], expansions=LEVIATHAN)
    assert one_search > 100 * heuristic  # each of its decisions plays 64 games to their end
    looks = one_search - heuristic
    assert seat_seconds(spec, 4, [search128, greedy, greedy, greedy], expansions=LEVIATHAN) - (
        heuristic) == pytest.approx(2 * looks)  # twice the rollouts, twice the look-ahead
    assert seat_seconds(spec, 5, [search] * 5, expansions=LEVIATHAN) - heuristic == (
        pytest.approx(5 * looks))


def test_the_base_games_rollouts_are_the_longer(abyss):
    """Measured (docs/reliability.md): 64 rollouts cost about 1.0 CPU s a four-player game of
    the base game, 0.26 s with Leviathan; an expansion set not measured takes the slowest."""
    spec, greedy, search, _ = abyss
    lineup = [search, greedy, greedy, greedy]
    base, leviathan = (seat_seconds(spec, 4, lineup, expansions=e) for e in ((), LEVIATHAN))
    assert base > 3 * leviathan
    assert seat_seconds(spec, 4, lineup, expansions=("another",)) == base


def test_the_reference_engine_is_counted_at_its_own_rate(abyss):
    spec, greedy, *_ = abyss
    assert seat_seconds(spec, 4, [greedy], "reference") > 100 * seat_seconds(spec, 4, [greedy])


# with Leviathan 0.26 CPU s a game with one search seat, 2 cores: 110 and 43 minutes; the base
# game's 1.0 s: 2.8 hours
@pytest.mark.parametrize(("n_games", "expansions", "asks"), [
    (50_000, LEVIATHAN, "110 minutes"), (20_000, LEVIATHAN, None), (20_000, (), "2.8 hours")])
def test_a_long_search_run_asks_where_the_heuristics_would_not(abyss, tmp_path, n_games,
                                                               expansions, asks):  # fmt: skip
    spec, greedy, search, _ = abyss
    size = {"per_game": False, "out": tmp_path, "yes": False, "threads": 2, "n_players": 4,
            "expansions": expansions}  # fmt: skip
    check_size(spec, "simulation", n_games * 4, policies=[greedy] * 4, **size)  # goes on
    lineup = [search, greedy, greedy, greedy]
    if asks:
        with pytest.raises(UserError, match=rf"would take about {asks} on 2 core.*add --yes"):
            check_size(spec, "simulation", n_games * 4, policies=lineup, **size)
    else:
        check_size(spec, "simulation", n_games * 4, policies=lineup, **size)


def test_yes_goes_on_with_the_line(abyss, tmp_path, capsys):
    spec, greedy, search, _ = abyss
    check_size(spec, "simulation", 200_000, per_game=False, out=tmp_path, yes=True, threads=2,
               n_players=4, policies=[search, greedy, greedy, greedy])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "going on (--yes)" in err


# --- Leviathan Wilds: rates per episode in its analysis module --------------------------------


def test_wilds_runs_are_estimated_per_episode(tmp_path, monkeypatch):
    """A Wilds `simulate` plays every setting (`RUNS_PER_EPISODE` episodes per --games); its
    rates are measured per episode (games/wilds/report/__init__.py), on one core (the run keeps
    about one busy). Before, Wilds had none: `seat_seconds` was None and a run of any size
    started without a word."""
    from games.wilds.report import episodes
    from games.wilds.report.crystals import RUNS_PER_EPISODE, run_analysis
    from reports.runs import setup

    spec = games.get("wilds")
    assert seat_seconds(spec, 1) > 0
    frame = run_analysis(spec.load_cards(None, None), 1, 3)
    assert frame.groupby(["setting", "deck"]).ngroups == RUNS_PER_EPISODE == episodes(1)
    monkeypatch.setattr(setup, "_available_memory", lambda: None)  # (the time alone)
    size = {"per_game": False, "out": tmp_path, "yes": False, "threads": 2}
    check_size(spec, "simulation", episodes(100_000), **size)  # seconds: goes on
    hours = 3 * 3600 / seat_seconds(spec, 1)  # episodes of three hours on one core
    with pytest.raises(UserError, match=r"would take about 3 hours on 1 core.*add --yes"):
        check_size(spec, "simulation", int(hours), **size)


@pytest.mark.parametrize(("command", "what"), [
    (["simulate", "--game", "wilds", "--games", "2000"], "simulation"),
    (["sweep", "--game", "wilds", "--games", "2000", "--set", "climber.ap_per_turn=4,6"],
     "sweep")])
def test_a_wilds_run_that_would_not_fit_in_memory_is_refused_first(tmp_path, monkeypatch,
                                                                   command, what):  # fmt: skip
    """The Wilds tables are held whole: a run larger than the memory available (here made
    10 MB) is refused in one line before it starts, `--yes` or not; before, `--games 1000000`
    ran for minutes (13 GB) and larger ones failed at the end. (A small run, so that without
    the refusal the case ends at once, failing on its exit code.)"""
    from typer.testing import CliRunner

    from cli.app import app
    from reports.runs import setup

    monkeypatch.setattr(setup, "_available_memory", lambda: 10**7)
    out = tmp_path / "w"
    for yes in ([], ["--yes"]):
        result = CliRunner().invoke(app, [*command, "--out", str(out), *yes])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: this {what} would need"), lines
        assert "of memory (10 MB available): make it smaller" in lines[0]
        assert not list(tmp_path.iterdir())


def test_the_memory_estimate_has_its_fixed_part_and_a_margin(tmp_path, monkeypatch):
    """A Wilds simulate's peak was measured at 0.56 GB for --games 20,000 (0.32 GB before any
    episode), so the estimate counts the fixed part; and a run is refused beyond 80% of the
    memory available (its peak ran up to 10% over the estimate)."""
    from games.wilds.report import episodes
    from reports.runs import setup

    spec = games.get("wilds")
    size = {"per_game": True, "out": tmp_path, "yes": True, "threads": 2}
    monkeypatch.setattr(setup, "_available_memory", lambda: 0.6e9)
    with pytest.raises(UserError, match="of memory"):  # 0.61 GB
        check_size(spec, "simulation", episodes(20_000), **size)
    monkeypatch.setattr(setup, "_available_memory", lambda: 0.7e9)
    with pytest.raises(UserError, match="of memory"):  # within 80% of it: no margin
        check_size(spec, "simulation", episodes(20_000), **size)
    monkeypatch.setattr(setup, "_available_memory", lambda: 0.8e9)
    check_size(spec, "simulation", episodes(20_000), **size)


def test_the_memory_available_is_the_containers_when_less(tmp_path, monkeypatch):
    """Inside a container whose memory is limited, MemAvailable is the host's: the estimate
    reads the cgroup's limit less what it uses, its reclaimable file cache counted as free (a
    container at its limit after writing files is normal, and its cache gives way)."""
    from reports.runs import setup

    group = tmp_path / "cgroup"
    group.mkdir()
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16000000 kB\nMemAvailable:    8000000 kB\n")
    real = setup.Path
    fake = {"/sys/fs/cgroup": group, "/proc/meminfo": meminfo}
    monkeypatch.setattr(setup, "Path", lambda p, *more: fake.get(str(p)) or real(p, *more))

    def cgroup(limit: str, current: int, inactive_file: int) -> None:
        (group / "memory.max").write_text(f"{limit}\n")
        (group / "memory.current").write_text(f"{current}\n")
        (group / "memory.stat").write_text(f"anon 100\ninactive_file {inactive_file}\n")

    cgroup("2000000000", 500_000_000, 0)
    assert setup._available_memory() == 1_500_000_000
    cgroup("2000000000", 2_000_000_000, 1_200_000_000)  # at its limit, mostly file cache
    assert setup._available_memory() == 1_200_000_000
    cgroup("2000000000", 2_100_000_000, 0)  # over it: nothing, not "no reading"
    assert setup._available_memory() == 0
    cgroup("max", 500_000_000, 0)  # no limit: the system's
    assert setup._available_memory() == 8_000_000 * 1024


def test_nothing_available_refuses_and_no_reading_does_not(tmp_path, monkeypatch):
    """0 bytes available is a reading (a container at its limit): refused. None is no reading
    (no /proc/meminfo): the run goes on."""
    from games.wilds.report import episodes
    from reports.runs import setup

    spec = games.get("wilds")
    size = {"per_game": True, "out": tmp_path, "yes": True, "threads": 2}
    monkeypatch.setattr(setup, "_available_memory", lambda: 0)
    with pytest.raises(UserError, match="of memory"):
        check_size(spec, "simulation", episodes(1000), **size)
    monkeypatch.setattr(setup, "_available_memory", lambda: None)
    check_size(spec, "simulation", episodes(1000), **size)


def test_a_sweep_is_estimated_at_its_own_rate(tmp_path, monkeypatch):
    """A Wilds sweep holds less per episode than a `simulate` (0.8 kB against 1.33 kB,
    measured): a sweep that fits is not refused at the simulate's rate."""
    from typer.testing import CliRunner

    from cli.app import app
    from reports.runs import setup

    # 3 points x 200,000 episodes: 0.80 GB at the sweep's rate, 1.12 GB at the simulate's
    monkeypatch.setattr(setup, "_available_memory", lambda: 1.2e9)
    monkeypatch.setattr("reports.runs.sweep.Run.start", _started)
    result = CliRunner().invoke(app, ["sweep", "--game", "wilds", "--games", "200000", "--set",
                                      "climber.ap_per_turn=4,6", "--out", str(tmp_path / "s")])
    assert "would need" not in result.output, result.output
    assert isinstance(result.exception, _Started), result.output


class _Started(Exception):
    """A run got past its estimate (the test stops it there)."""


def _started(*args, **kwargs):
    raise _Started
