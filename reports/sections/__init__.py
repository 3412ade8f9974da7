"""What a report shows: each module a section of the page or the verdicts it states (the verdict
table and its test across play strengths, seats, card values, tension, cycles, drama, skill,
how games end, a design's or a tune's results).

Above the procedures (`reports.tune`, `reports.restrict`, ...), whose results they show.
"""
