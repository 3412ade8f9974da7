"""A resumed run never mixes data (issue 53): the plan an interrupted run started with carries
its digest, and `--resume` refuses a plan edited since (its seed, its number of games, a sweep's
points), in one line, before playing anything; the finished chunks stay as they were."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from reports.run_dir import PLAN_NAME, read_plan, write_plan
from sim.core.errors import UserError
from sim.core.runs import partial_dir
from tests.cli.test_resume import ARGS, copy_staging, interrupt, run


@pytest.fixture(scope="module")
def cut(tmp_path_factory) -> Path:
    """One `simulate` run stopped with SIGTERM after 3 finished chunks (its staging), which each
    test copies: they all start from the same interruption, made once."""
    out = tmp_path_factory.mktemp("cut") / "run"
    interrupt(["simulate", *ARGS], out, signal.SIGTERM)
    return partial_dir(out)


def test_a_plan_edited_after_it_was_written_is_refused(tmp_path) -> None:
    write_plan(tmp_path, {"seed": 1, "games": 24000, "strategies": ["greedy", "farmer"]})
    assert read_plan(tmp_path)["seed"] == 1
    plan = json.loads((tmp_path / PLAN_NAME).read_text())
    for key, value in (("seed", 7), ("games", 5000), ("strategies", ["farmer", "greedy"])):
        edited = {**plan, key: value}
        (tmp_path / PLAN_NAME).write_text(json.dumps(edited))
        with pytest.raises(UserError, match="was changed after the run started"):
            read_plan(tmp_path)
    (tmp_path / PLAN_NAME).write_text(json.dumps(plan, indent=4))  # layout is not content
    assert read_plan(tmp_path)["games"] == 24000


def test_a_plan_of_an_older_version_without_a_digest_still_resumes(tmp_path) -> None:
    (tmp_path / PLAN_NAME).write_text(json.dumps({"seed": 1, "games": 10}))
    assert read_plan(tmp_path) == {"seed": 1, "games": 10}


def test_a_run_of_a_version_before_the_stamps_resumes_its_unstamped_chunks(
    tmp_path, cut
) -> None:
    """A run started by a version whose plan says nothing of stamped chunks (no
    `chunks_stamped`, no digest) and whose chunk markers name no plan resumes as before: only a
    plan of this version makes an unstamped marker foreign."""
    out = copy_staging(cut, tmp_path / "run")
    staging = partial_dir(out)
    plan = json.loads((staging / PLAN_NAME).read_text())
    assert plan.pop("chunks_stamped") is True and plan.pop("plan_digest")
    (staging / PLAN_NAME).write_text(json.dumps(plan))
    markers = list((staging / "chunks").rglob("*.done"))
    assert markers
    for marker in markers:
        made = json.loads(marker.read_text())
        made.pop("plan")
        marker.write_text(json.dumps(made))
    p = run("simulate", "--resume", out)
    assert p.returncode == 0, p.stderr
    assert out.is_dir()


@pytest.mark.parametrize("edit", [{"seed": 7}, {"n_games": 5000}])
def test_resume_refuses_an_edited_plan_before_playing(tmp_path, cut, edit) -> None:
    out = copy_staging(cut, tmp_path / "run")
    staging = partial_dir(out)
    plan_file = staging / PLAN_NAME
    plan = json.loads(plan_file.read_text())
    assert set(edit) <= set(plan), plan
    chunks = sorted(p.name for p in staging.rglob("*") if p.is_file() and p != plan_file)
    plan_file.write_text(json.dumps({**plan, **edit}, indent=1))
    p = run("simulate", "--resume", out)
    assert p.returncode != 0
    assert p.stderr.strip().count("\n") == 0 and "was changed after the run started" in p.stderr
    assert "Traceback" not in p.stderr
    after = sorted(q.name for q in staging.rglob("*") if q.is_file() and q != plan_file)
    assert after == chunks, "nothing may be played or removed by a refused resume"
    assert not out.exists()
    assert not any(Path(staging.parent).glob(f".{out.name}.lock")), "no stale lock is left"


def test_resume_given_the_staging_names_the_run(tmp_path, cut) -> None:
    """`--resume .NAME.partial` (the hidden staging, as `ls -a` shows it) once said "already
    complete" about an unfinished run; now it names the run to resume."""
    out = copy_staging(cut, tmp_path / "run")
    p = run("simulate", "--resume", partial_dir(out))
    assert p.returncode != 0 and "already complete" not in p.stderr
    assert f"--resume {out}" in p.stderr and p.stderr.strip().count("\n") == 0
    assert run("simulate", "--resume", out).returncode == 0


def test_resume_refuses_a_chunk_copied_from_another_run(tmp_path, cut) -> None:
    """"... a chunk copied in from another run (with its own valid checksum) is merged": each
    chunk's marker names the plan that made it, and `--resume` refuses a chunk of another plan
    in one line, before playing anything; the staging and its chunks stay as they were."""
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    copy_staging(cut, mine)
    interrupt(["simulate", *ARGS[:-1], "6"], theirs, signal.SIGTERM)
    staging, other = partial_dir(mine), partial_dir(theirs)
    first = sorted((other / "chunks").glob("000000000000-*"))
    assert first and any(p.name.endswith(".done") for p in first)
    for p in (staging / "chunks").glob("000000000000-*"):
        p.unlink()
    for p in first:  # the other run's chunk of the same games, checksums and all
        shutil.copy(p, staging / "chunks" / p.name)
    before = {p.name: p.read_bytes() for p in staging.rglob("*") if p.is_file()}
    p = run("simulate", "--resume", mine)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert p.stderr.strip().count("\n") == 0 and "another run's plan" in p.stderr
    after = {p.name: p.read_bytes() for p in staging.rglob("*") if p.is_file()}
    assert after == before, "a refused resume plays, moves and removes nothing"
    assert not mine.exists()
    assert not any(staging.parent.glob(f".{mine.name}.lock")), "no stale lock is left"
    # the same chunk with its marker's plan taken out (as an older version wrote it): this
    # run's plan has its digest, so every chunk of its own names it; this one is refused too
    import json

    for marker in (staging / "chunks").glob("000000000000-*.done"):
        stamped = json.loads(marker.read_text())
        stamped.pop("plan")
        marker.write_text(json.dumps(stamped))
    p = run("simulate", "--resume", mine)
    assert p.returncode != 0 and "carries no plan stamp" in p.stderr and not mine.exists()
    # its own chunks resume: the other run's chunk taken out, the run finishes
    for p in first:
        (staging / "chunks" / p.name).unlink()
    assert run("simulate", "--resume", mine).returncode == 0


def test_a_resume_refused_by_a_later_check_leaves_no_lock(tmp_path) -> None:
    """A check that refuses the resumed run after `--resume` took its lock (here a stray file
    put into its `--cards` folder since) gives the lock up: no `.NAME.lock` is left."""
    cards = tmp_path / "cards"
    shutil.copytree(Path(__file__).resolve().parents[2] / "games/abyss/engine/data", cards)
    out = tmp_path / "run"
    interrupt(["simulate", *ARGS, "--cards", cards], out, signal.SIGTERM)
    (cards / "lords-old.toml").write_text((cards / "lords.toml").read_text())
    p = run("simulate", "--resume", out)
    assert p.returncode != 0 and "not read by the game" in p.stderr
    assert p.stderr.strip().count("\n") == 0
    assert not any(tmp_path.glob(f".{out.name}.lock")), "no stale lock is left"
