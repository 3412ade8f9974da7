"""Playing games for an analysis: a tournament of a line-up in blocks of one deal, in chunks, on
threads or Dask (`tournament`), and the seed of each purpose of a run (`seeds`).

On `stats`; every procedure above plays its games through here.
"""
