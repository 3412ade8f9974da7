"""Analyses for every game through its spec, in layers, each importing only those below it
(tests/core/test_imports.py; docs/architecture.md):

    runs/       one module per command's run
    sections/   what a report shows: sections and verdicts
    (top)       the procedures: tune, restrict, budget, design, design_targets, learned_fit,
                strengths (the play strengths), run_dir (the life of a run directory)
    metrics/    what is measured in played games
    play/       games of a line-up, in blocks and chunks; a seed per purpose
    render/     the report writer and charts       stats/   the shared statistics

Nothing is imported here: ``import cli.app`` must stay free of numpy, pandas and numba.
"""
