"""Many futures of one scenario: a replication's draws and compact record (``replication``), run
serially, on local processes (``local``) or on Dask (``dask``) by ``run``, and summarised
(``summary``: quantiles, odds, drivers). Imports ``engine`` and below, never ``advice``.
"""
