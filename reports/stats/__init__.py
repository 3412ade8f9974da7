"""The statistics every analysis shares, the deal (block) the unit: intervals (`intervals`),
per-block summaries, paired comparisons and multiple-testing corrections (`blocks`), the
Plackett-Luce rating (`rating`) and anytime-valid sequences for stopping (`sequential`).

The lowest layer of `reports`: it imports no other part of it.
"""
