"""The plan as a FOCUS bill (``tco simulate --format focus``: focus.csv), so FinOps tools can hold
it against the real ones: a row per option, month and ledger category with cash in it, in the
FOCUS 1.2 columns (``tracking.focus.COLUMNS``; tco's own in ``x_`` columns, as the spec allows).

- Each row is billed by one provider: a rented option's clouds, "Owned (on premises)" for
  what servers bought cost (FOCUS covers data-centre costs too); a hybrid's burst by its cloud.
- The ChargeCategory is the ledger category's (``Category.focus_charge``): servers bought and
  financed and a commitment's payments are Purchase, a resale is a Credit, the rest Usage.
- A commitment as FOCUS represents it: its payments a Purchase row (BilledCost, no EffectiveCost),
  what it covers Usage rows with CommitmentDiscountStatus Used and Unused (no BilledCost, the
  amortised EffectiveCost), from the ledger's accounting view.
- BilledCost is the plan's cash; EffectiveCost the accounting view where the category has one.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from tco.pricing import providers
from tco.reports.formatting import sheet_text
from tco.simulator.core.atomic import write_text
from tco.simulator.costs.ledger import category
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import registry
from tco.simulator.tracking.focus import COLUMNS

EXTRA = ("x_TcoOption", "x_TcoCategory", "x_TcoVersion")


def _label(name: str) -> str:
    return "AWS" if name == providers.AWS else str(providers.get(name).label)


def _provider(o: OptionResult, billed: bool) -> str:
    """Who bills a category of the option: a cloud category (``Category.billed``) the clouds it
    rents from, as its kinds declare them (every one of a fleet across several: the ledger does
    not split its cash by provider); the rest the owner when it buys servers (a hybrid's
    capex, power, staff), else its clouds too (storage and egress where its data lives)."""
    clouds = ", ".join(_label(n) for n in o.rents_from)
    if registry.get(o.kind).buys_hardware and not (billed and clouds):
        return "Owned (on premises)"
    return clouds or "A machine the scenario describes"


def _next(month: str) -> str:
    y, m = int(month[:4]), int(month[5:7])
    return f"{y + m // 12:04d}-{m % 12 + 1:02d}"


def rows(result: Result) -> list[dict[str, Any]]:
    out = []
    for o in result.options:
        views = [("cash", o.ledger.cash), ("accounting", o.ledger.accounting)]
        for view, ledger in views:
            covered = view == "accounting"  # a commitment's use, as FOCUS shows it
            for name, monthly in ledger.items():
                c = category(name)
                if c.tax:
                    continue  # income tax is no provider's charge (a plan decided after tax)
                if covered and c.commitment not in ("used", "unused"):
                    continue  # the cash view holds every category's bill; this, its coverage
                service, sub = c.focus_service()
                provider = _provider(o, c.billed)
                charge = "Usage" if covered else c.focus_charge()
                months_paid = int((abs(monthly) >= 0.005).sum())
                frequency = (
                    "Usage-Based"
                    if charge != "Purchase"
                    else "Recurring"
                    if months_paid > 1
                    else "One-Time"
                )
                for month, usd in zip(result.months, monthly, strict=True):
                    if abs(usd) < 0.005:
                        continue
                    start, end = f"{month}-01T00:00:00Z", f"{_next(month)}-01T00:00:00Z"
                    cents = round(float(usd), 2)
                    # A commitment's payment is billed, its cost counted where it is used.
                    effective = cents if covered or not c.commitment else 0.0
                    out.append(
                        {
                            "ProviderName": provider,
                            "PublisherName": provider,
                            "InvoiceIssuerName": provider,
                            "BillingAccountId": result.scenario.name,
                            "BillingAccountName": result.scenario.name,
                            "BillingPeriodStart": start,
                            "BillingPeriodEnd": end,
                            "ChargePeriodStart": start,
                            "ChargePeriodEnd": end,
                            "BillingAccountType": "Plan (tco)",
                            "ChargeCategory": charge,
                            "ChargeDescription": f"{o.name}: {c.label} (planned by tco)",
                            "ChargeFrequency": frequency,
                            "BilledCost": 0.0 if covered else cents,
                            "EffectiveCost": effective,
                            "PricingCurrencyEffectiveCost": effective,
                            "ListCost": cents,
                            "ContractedCost": cents,
                            "BillingCurrency": "USD",
                            "PricingCurrency": "USD",
                            "ServiceName": c.label,
                            "ServiceCategory": service,
                            "ServiceSubcategory": sub,
                            "CommitmentDiscountId": o.name if c.commitment else "",
                            "CommitmentDiscountName": o.name if c.commitment else "",
                            "CommitmentDiscountStatus": c.commitment.capitalize()
                            if covered
                            else "",
                            "x_TcoOption": o.name,
                            "x_TcoCategory": name,
                            "x_TcoVersion": result.version,
                        }
                    )
    return out


def text(result: Result) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=[*COLUMNS, *EXTRA], lineterminator="\n")
    w.writeheader()
    for r in rows(result):
        # Names from the scenario (an option's, the scenario's) a spreadsheet would read as a
        # formula are written as text, as every CSV of a report (``formatting.sheet_text``).
        w.writerow({k: _cell(r.get(k, "")) for k in (*COLUMNS, *EXTRA)})
    return buf.getvalue()


def _cell(v: Any) -> Any:
    return sheet_text(v) if isinstance(v, str) else v


def write(result: Result, path: Path) -> Path:
    """focus.csv, written as every report file is (``core.atomic``)."""
    return write_text(path, text(result))
