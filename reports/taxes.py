"""Income tax in the answer's words: which money the figures are (before or after tax), the
other beside it, and what the tax rests on (``simulator.costs.tax``)."""

from __future__ import annotations

from tco.reports.words import usd
from tco.simulator.engine.metrics import Taxed
from tco.simulator.engine.result import Result
from tco.simulator.engine.rule import by_cash


def taxed_of(result: Result, name: str | None) -> Taxed | None:
    """The named option's figures before and after tax (None: no tax: section, or no such
    option among the results)."""
    if name is None or result.scenario.tax is None:
        return None
    try:
        return result.option(name).metrics.tax
    except KeyError:
        return None


def cash_words(result: Result) -> str:
    """What the answer's cash is: 'before tax' without a tax: section, else the tax basis the
    decision is on."""
    t = result.scenario.tax
    return "after tax" if t is not None and t.decide_on == "after_tax" else "before tax"


def beside(result: Result, name: str | None) -> str:
    """The other figure, beside the decided one: '; after tax $X (NPV $Y)' (empty: no tax)."""
    t = taxed_of(result, name)
    if t is None:
        return ""
    cash, npv = t.beside
    cur = result.scenario.money
    side = "before" if t.after_tax else "after"
    return f"; {side} tax {usd(cash, cur)} (NPV {usd(npv, cur)})"


def _pct(x: float) -> str:
    return f"{100 * x:.4g}%"


def tax_lines(result: Result) -> list[str]:
    """What the after-tax figures rest on, and whether the order of the options moves (none
    without a tax: section)."""
    tax = result.scenario.tax
    if tax is None:
        return []
    rate = _pct(tax.rate) + " federal"
    if tax.state_rate:
        rate += f" + {_pct(tax.state_rate)} state ({_pct(tax.combined_rate)} in all)"
    method = {
        "bonus": "servers expensed when placed in service (bonus depreciation, IRC §168(k))",
        "section_179": "servers expensed under section 179 up to its limit, then MACRS",
        "macrs": "servers depreciated by MACRS over 5 years",
        "straight_line": "servers depreciated straight line over 5 years",
    }[tax.method]
    if tax.bonus_share is not None:
        method = f"{tax.bonus_share:.0%} of servers' cost expensed (bonus), the rest MACRS"
    if not tax.state_follows_bonus:
        method += " (the state's by MACRS: it does not follow bonus)"
    taxed = [(o.name, t) for o in result.options if (t := o.metrics.tax) is not None]
    before = [n for n, _ in by_cash(taxed, lambda x: x[1].before_usd)]
    after = [n for n, _ in by_cash(taxed, lambda x: x[1].after_usd)]
    order = (
        "the options rank alike before and after tax (every deduction falls within the"
        " horizon); tax moves when money comes back (NPV after tax)"
        if before == after
        else "the options rank differently after tax"
    )
    return [
        f"Tax: {rate}, {method}, paid {tax.payments}; assumed: profit enough to use each"
        f" deduction the year it arises. {order[0].upper()}{order[1:]}."
    ]
