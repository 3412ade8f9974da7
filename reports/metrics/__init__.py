"""What a designer measures in played games (docs/metrics.md): tension and the lead's growth
(`tension`), who beats whom (`cycles`), drama and decisiveness (`drama`), skill steps (`skill`).

Numbers only, no sentences: the report's sections (`reports.sections`) word them.
"""
