"""One module per command's run (simulate, tournament, sweep, tune, restrict, design, learn,
plan, bench, replay, drama, skill; describe: cards, strategies, report; warmup: the first run's
compile): what it checks, plays, in which stages, what it writes and how it resumes. `options`
holds every command's options as one typed object, `setup` what the runs share before they play.

The top layer of `reports`: nothing in `reports` imports it; `abyss_mc` (and through it `cli`)
calls it.
"""
