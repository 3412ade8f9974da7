"""Playing games for an analysis: blocks of a line-up in chunks, here or on Dask, the one chunk
loop every analysis plays through (`blocks`); a tournament's design of line-ups and seatings
(`tournament`); and the seed of each purpose of a run (`seeds`).

On `stats`; every procedure above plays its games through here.
"""
