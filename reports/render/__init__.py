"""Writing what an analysis shows: the report (`report`: report.html, report.md, figures), its
text (`markup`) and what the charts share (`charts`).

Beside `stats` at the bottom of `reports`: it imports no other part of it.
"""
