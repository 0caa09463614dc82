"""The simulation itself, without advice: a scenario prepared (``prepared``), every option played on
the same jobs (``simulate``), measured (``metrics``) and gathered into a result (``result``,
with the advice's records, ``findings``). Imports ``scenario`` and everything below it.
"""
