"""Make the tuned presets again from the commands that made them, and their record.

Reruns every tune command recorded in games/<game>/strategies/tuned.toml ("# Made by: ..." above
each shipped preset, "# Made by (not shipped ...): ..." for a tune whose held-out check did not ship
it), each into runs/tuning/<game>-<preset>-<N>p (an interrupted run is resumed, a finished one
kept), then writes
- games/<game>/strategies/tuned.toml: each tune whose held-out interval lies above 0, as
  `<preset>_tuned_<N>p`, with its command; the others' commands as comments;
- docs/tuning-results.md: every tune before and after, what the archetype held, the code and
  card data they ran on, the behavioural signatures (`reports.sections.signature`) of each
  hand-written
  preset, its tuned and its open version, and the commands.

games/<game>/strategies/open.toml (the open presets, docs/tuning.md) is never touched.

    python scripts/tune_presets.py               # rerun the recorded commands, then collect
    python scripts/tune_presets.py --collect     # collect the finished runs only
    python scripts/tune_presets.py --fresh       # new commands: every hand-written preset at
                                                 # every count it plays (Abyss with Leviathan
                                                 # 2-5, Conspiracy 2-4), seed 2026, field screened
    python scripts/tune_presets.py --fresh --tune-options "--games 600000"   # another budget
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reports.sections.signature import archetype_table, tuned_games  # noqa: E402
from reports.sections.tune import command_options, preset_name, recorded_commands  # noqa: E402

#: the player counts tuned, per game: every count it plays (Abyss's fifth seat with Leviathan,
#: whose presets were tuned with it: `tuned_games`)
PLAYERS = {"abyss": (2, 3, 4, 5), "conspiracy": (2, 3, 4)}
SEED = 2026
HEADER = """# Tuned presets: each hand-written preset tuned within its archetype by `abyss-mc tune`
# (the command above each, the held-out check and what the archetype held in its description);
# the table of all of them is docs/tuning-results.md. Made again, with this file and that table,
# by `python scripts/tune_presets.py` from the commands recorded here; do not edit by hand.
"""


def tuned_file(game: str) -> Path:
    return ROOT / "games" / game / "strategies" / "tuned.toml"


def abyss_mc(*args: str) -> None:
    """`abyss-mc ARGS` on this checkout's code (whatever `abyss-mc` is installed)."""
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    subprocess.run([sys.executable, "-m", "cli.entry", *args], check=True, cwd=ROOT, env=env,
                   stdout=subprocess.DEVNULL)  # fmt: skip


def run_dir(root: Path, command: str) -> Path:
    o = command_options(command)
    kind = "-open" if o.get("open") else ""
    return root / f"{o['game']}-{o['strategy']}{kind}-{o['players']}p"


def fresh_commands(extra: str) -> dict[str, list[str]]:
    """Every hand-written preset of each game at each player count, the field screened."""
    from sim import games

    out = {}
    for game in tuned_games():
        presets = games.get(game).strategies().hand_written_presets()
        out[game] = [f"abyss-mc tune --game {game} --strategy {p} --players {n} --seed {SEED}"
                     + (f" {extra}" if extra else "")
                     for n in PLAYERS[game] for p in presets]  # fmt: skip
    return out


def run(command: str, out: Path, fresh: bool) -> None:
    """Run one tune into `out`: resume it if interrupted; keep it if finished (a rerun's must
    have been made by this very command)."""
    if (out / "tuned.toml").is_file():
        made = json.loads((out / "manifest.json").read_text())["config"]["recorded_command"]
        if not fresh and made != command:
            raise SystemExit(f"{out} was made by another command ({made}); remove it or use "
                             "another --root")  # fmt: skip
        return
    partial = out.parent / f".{out.name}.partial"
    args = ["tune", "--resume", str(out)] if partial.exists() else \
        [*shlex.split(command)[1:], "--out", str(out)]  # fmt: skip
    print(f"{out.name}: {'resuming' if partial.exists() else 'tuning'}", flush=True)
    abyss_mc(*args)


def collect(root: Path, commands: dict[str, list[str]], signature_games: int) -> None:
    runs = {game: [run_dir(root, c) for c in cmds] for game, cmds in commands.items()}
    table, listed, made_on = [], [], {}
    for game, dirs in runs.items():
        shipped, dropped = [], []
        for out in sorted(dirs, key=_order):
            if not (out / "tuned.toml").is_file():
                raise SystemExit(f"{out} is not finished: tune it first (without --collect)")
            manifest = json.loads((out / "manifest.json").read_text())
            config = manifest["config"]
            start, n, held = config["strategy"], config["players"], config["held_out"]
            name = preset_name(start, n, config.get("open", False))
            text = (out / "tuned.toml").read_text()
            (old,) = tomllib.loads(text)
            ok = held["verdict"] == "better"
            if ok:
                shipped.append(text.replace(f"[{old}]", f"[{name}]"))
            else:
                note = f"not shipped: the held-out check says {held['verdict']}"
                dropped.append(f"# Made by ({note}): {config['recorded_command']}")
            table.append((game, start, n, config, held, name if ok else None))
            listed.append(config["recorded_command"])
            code = config["code"]
            made_on.setdefault(game, set()).add(
                (code["git_commit"], code["git_dirty"], code["source_digest"],
                 manifest["card_digest"])  # fmt: skip
            )
        body = "".join("\n" + b for b in shipped)
        if dropped:
            body += "\n# Tunes not shipped (the preset did not beat its start on held-out deals):\n"
            body += "\n".join(dropped) + "\n"
        tuned_file(game).write_text(HEADER + body)
    signature_text = signature_section(signature_games)
    write_results(table, listed, made_on, signature_text, signature_games)


def _order(out: Path):
    game, rest = out.name.split("-", 1)
    preset, n = rest.rsplit("-", 1)
    return int(n[:-1]), preset


def signature_section(n_games: int) -> str:
    """Each hand-written preset, its tuned and its open version, signed against its tune's
    field on the same games, at every player count."""
    parts = []
    for game, expansions in tuned_games().items():
        for n in PLAYERS[game]:
            table = archetype_table(game, n, n_games=n_games, seed=SEED, expansions=expansions)
            parts += [f"### {game.capitalize()}, {n} players", "", table, ""]
    return "\n".join(parts)


def write_results(table, listed, made_on, signature_text: str, n_games: int) -> None:
    lines = [
        "| game | preset | players | held to the archetype | field | before | after | "
        "difference (95% CI) | shipped |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for game, start, n, config, held, name in sorted(table, key=lambda r: (r[0], r[2], r[1])):
        rules = ", ".join(f"{k} {v}" for k, v in config["archetype"].items()) or "nothing"
        diff = f"{held['diff']:+.1%} [{held['lo']:+.1%}, {held['hi']:+.1%}]"
        lines.append(
            f"| {game} | {start} | {n} | {rules} | {', '.join(config['opponents'])} | "
            f"{held['start']:.1%} | {held['tuned']:.1%} | {diff} | "
            f"{name or 'no: ' + held['verdict']} |"
        )
    code = []
    for game, versions in made_on.items():
        for commit, dirty, source, cards in sorted(versions, key=str):
            where = f"git {commit}{' with changes' if dirty else ''}" if commit else "no git"
            code.append(f"- {game}: {where}, source {source}, card data {cards}")
    budgets = sorted({_budget(c) for c in listed})
    text = f"""# Tuned presets: before and after

Made by `python scripts/tune_presets.py` from the commands recorded in
`games/<game>/strategies/tuned.toml` (all listed at the end): every hand-written preset tuned
within its archetype (docs/tuning.md, "Within the archetype": what the preset sets stays on its
side of the policy's default, or is held) at every player count (Abyss with Leviathan 2 to 5,
Conspiracy 2 to 4), seed {SEED}, against the field the tune screened from the hand-written
presets and policies (written out in each command). Budget: {'; '.join(budgets)}.
*Before* and *after*: the win rate of the starting preset and of the tuned one against the same
field, on held-out deals the search never
saw, paired by deal. A tuned preset is shipped (`games/<game>/strategies/tuned.toml`) only when its
interval lies above 0. The open presets (`<preset>_open_<N>p`, every parameter tuned) are not
remade (docs/tuning.md).

{chr(10).join(lines)}

Made on:

{chr(10).join(code)}

## Behavioural signatures

What each hand-written preset, its tuned version and its open version do in their games
(`reports/sections/signature.py`, on the reference engine's event log): each against the field of
its
tune, on the same {n_games} games of seed {SEED} (its seat rotated), means per game. Abyss:
*win* its share of the win; *Lords* recruited, then by guild (*Mag*e, *Sol*dier, *Far*mer,
*Mer*chant, *Pol*itician, *Amb*assador); Allies *bought* from another's exploration and *taken*
on its own; *Council* stacks requested; *fights*: the share of the Monsters revealed on its own
exploration that it fought when it could; *attacks* on Leviathans; *plot Pearls*: Pearls spent
plotting at Court; Lords with a Key recruited (*Key Lords*), *Key tokens* gained, and
*Loc*ations at the end. Conspiracy: *Lords* placed, discard *piles*
taken and the *pile Lords* placed from them, *draws* from the deck, Lords with a Key and with
Pearls placed, the share of games ending with the *Pearl Master*, the largest same-colour
*coalition*, *Loc*ations, and the IP from Lords, Locations and the coalition.
`python scripts/signature.py --game G --players N` prints one table.

{signature_text}
## The commands

```sh
{chr(10).join(sorted(listed, key=_command_order))}
```
"""
    (ROOT / "docs" / "tuning-results.md").write_text(text)


def _budget(command: str) -> str:
    o = command_options(command)
    return (f"{int(o['candidates'])} candidates, {int(o['games']):,} search games, the "
            f"{o['finalists']} finalists on {int(o['reeval_games']):,} fresh games each, the "
            f"held-out check {int(o['heldout_games']):,} games each")  # fmt: skip


def _command_order(command: str):
    o = command_options(command)
    return o["game"], int(o["players"]), o["strategy"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT / "runs" / "tuning")
    ap.add_argument("--collect", action="store_true", help="collect the finished runs only")
    ap.add_argument("--fresh", action="store_true",
                    help="new commands: every hand-written preset, the field screened")  # fmt: skip
    ap.add_argument("--tune-options", default="", help="with --fresh: options added to each")
    ap.add_argument("--signature-games", type=int, default=200)
    ap.add_argument("--only", default="", help="a regular expression: tune only matching runs")
    args = ap.parse_args()
    if args.fresh:
        commands = fresh_commands(args.tune_options)
    else:
        commands = {game: recorded_commands(tuned_file(game).read_text()) for game in tuned_games()}
    args.root.mkdir(parents=True, exist_ok=True)
    if not args.collect:
        for cmds in commands.values():
            for command in sorted(cmds, key=_command_order, reverse=True):
                out = run_dir(args.root, command)
                if re.search(args.only, out.name):
                    run(command, out, args.fresh)
    if args.fresh:  # from now on, the commands the tunes recorded (the field written out)
        commands = {game: [json.loads((run_dir(args.root, c) / "manifest.json").read_text())
                           ["config"]["recorded_command"] for c in cmds]
                    for game, cmds in commands.items()}  # fmt: skip
    collect(args.root, commands, args.signature_games)


if __name__ == "__main__":
    main()
