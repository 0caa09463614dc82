"""Servers the site already owns (an owned option's ``existing:``), seen from every option: the
site starts each option owning them, so an option that does not run them sells them at the
start, and its cash shows the sale in its first month. Without it, renting everything would
look dearer than it is by what the servers fetch, and keeping them free of their price.

Options naming existing servers must name the same servers: a site owns one set.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.costs.ledger import Asset, Category, declare
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.site import Existing
from tco.simulator.scenario.model import Scenario

declare(
    Category(
        "existing_sold",
        "existing servers sold at the start",
        "server prices",
        "#b0b0b0",
        credit=True,
    )
)


def site_servers(scenario: Scenario, book: PriceBook, file: str) -> Existing | None:
    """The servers the site owns, as the options declaring them say (one set; a ScenarioError
    when two options declare different ones). Only kinds that run existing servers are asked:
    a scenario of rentals costs nothing here."""
    found: Existing | None = None
    for i, option in enumerate(scenario.options):
        kind = registry.of(option)
        if not kind.can(Can.EXISTING):
            continue
        ctx = scenario.context(file, i, book)
        e = kind.existing_servers(option, ctx)
        if e is None:
            continue
        if found is not None and e.key != found.key:
            raise ScenarioError(
                ctx.file,
                f"{ctx.where}.existing",
                f"declares {e.words}, another option {found.words}: a site owns one set of"
                " servers; give every option that keeps them the same existing:",
            )
        found = found or e
    return found


def sold_at_start(plan: Plan, site: Existing, months: int) -> Plan:
    """``plan`` credited the sale of the site's servers in its first month, said in its
    description and quotes (an option that keeps them is returned as it is)."""
    credit = np.zeros(months)
    credit[0] = -site.sold_now_usd
    return replace(
        plan,
        cash_only={**plan.cash_only, "existing_sold": credit},
        assets=plan.assets if site.asset is None else (*plan.assets, sold_then(site.asset)),
        quotes=(*plan.quotes, site.quote),
        description=f"{plan.description}; the site's {site.words} sold at the start",
    )


def sold_then(asset: Asset) -> Asset:
    """The site's servers' sale at the start, its tax counted where its cash is."""
    return replace(asset, sold="existing_sold")
