"""The budget owner's month (issue 43): a plan (a report folder of ``tco simulate``) held
against what was used (a cluster's accounting log) and billed (a FOCUS bill), month by month,
and the rest of the horizon forecast from where the actuals leave it.

- ``plan``: the plan's months, cash by category, and its jobs by month (from the report).
- ``usage``: what a cluster ran, by month of submission.
- ``focus``: a bill in the FinOps Foundation's FOCUS format, read; and a plan written as one.
- ``variance``: plan against actuals, month by month.
- ``forecast``: the workload's rate re-estimated from the recorded months and the rest of the
  horizon replayed, with the odds of landing over the budget.
"""
