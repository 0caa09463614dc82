"""The most a run may play, before it plays: each stage's declared bound in job-plays (jobs x
options played), summed, so that a run too large for ``engine.allowance``'s limit is refused
with its figure before it starts rather than found out after an hour.

- the options as listed: every job on every option, once;
- the portfolio search: its own ceiling (``portfolio.most_job_plays``);
- the decision's race: its budget (``decision.budget``: the odds' futures, or the base stream);
- the what-ifs: each change that replays, on every option at most, and the flip points' ceiling
  (``what_if.most_job_plays``).

The catalog's candidates and an owned option's size search declare no bound of their own: their
plays are charged to the same allowance as they happen (``allowance.charge``).
"""

from __future__ import annotations

from tco.simulator.advice import decision, portfolio, what_if
from tco.simulator.engine import allowance
from tco.simulator.engine.prepared import Prepared


def most(prepared: Prepared) -> tuple[int, str]:
    """The most job-plays ``prepared``'s run may spend, and of what, in words."""
    jobs, options = len(prepared.jobs), len(prepared.plans)
    parts = {
        f"{jobs:,} jobs x {options} options": jobs * options,
        "the portfolio search": portfolio.most_job_plays(prepared),
        "the decision's race": decision.budget(),
        "the what-ifs": what_if.most_job_plays(prepared),
    }
    return sum(parts.values()), "; ".join(f"{k}: {v:,}" for k, v in parts.items() if v)


def check(prepared: Prepared) -> None:
    """Refuse ``prepared``'s run when its most job-plays pass the limit (one line, the figure
    and its parts)."""
    total, parts = most(prepared)
    allowance.refuse_beyond(prepared.file, total, parts)
