"""The report as an ordered list of sections, rendered to self-contained HTML (a Jinja2
template, ``templates/report.html.j2``) or to Markdown.

Both renderings carry the same content, answer first: the recommendation and the service level,
what it rests on, warnings about the run (in their own box), the comparison, break-even, charts,
each option's budget (cash, accounting, usage; quarters and fiscal years), the prices with their
sources and dates, every assumption with its value, and what the model leaves out.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined

from tco.reports import (
    answer,
    carbon,
    chargeback,
    charts,
    decision,
    how_sure,
    lead,
    provenance,
    tables,
    taxes,
)
from tco.reports.charts import Chart
from tco.reports.formatting import as_text, markdown_table, md_text
from tco.simulator.core.scope import LEFT_OUT
from tco.simulator.engine.result import Result
from tco.simulator.engine.verdicts import by_cash
from tco.simulator.kinds import registry


@dataclass
class Table:
    caption: str
    frame: pd.DataFrame
    cards: bool = False  # on a narrow screen, one card per row (a few columns that all matter)
    prose: tuple[str, ...] = ()  # columns of sentences, which wrap
    marked: int | None = None  # the row to set apart (the recommendation)


@dataclass
class Section:
    id: str
    title: str
    headline: str = ""
    text: list[str] = field(default_factory=list)
    lists: list[tuple[str, list[str]]] = field(default_factory=list)  # (title, items)
    tables: list[Table] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)  # chart names
    box: str = ""  # "warnings": set apart from the answer
    folded: str = ""  # shown folded (HTML <details>) under this summary; printed folded too
    new_page: bool = False  # printed from a new page (the answer, comparison and break-even
    # share the first pages)


def _answer(result: Result) -> Section:
    rests_on = (
        answer.caveats(result)
        + answer.resale(result)
        + taxes.tax_lines(result)
        + answer.robustness(result)
    )
    found = (
        answer.portfolio(result)
        + answer.resizes(result)
        + answer.cheapest(result)
        + answer.open_work(result)
        + answer.remarks(result)
        + [f"Trace: {note}." for note in result.jobs.notes]
    )
    front = tables.frontier(result)
    return Section(
        "answer",
        "The answer",
        headline=answer.headline(result, with_level=False),
        text=[
            *how_sure.odds(result)[:2],
            *how_sure.spread_lines(result),
            *lead.replaced_lines(result),
            *lead.runner_up_line(result),
            f"Service level: {answer.level_text(result)}.",
            *how_sure.searched_lines(result),
        ],
        lists=[
            (t, items) for t, items in (("What it rests on", rests_on), ("Also", found)) if items
        ],
        tables=[]
        if front is None
        else [
            Table(
                "Cost against the chance of meeting the level (mean cash over the futures;"
                " * the scenario's confidence)",
                front,
                prose=("what it buys",),
            )
        ],
    )


def _comparison(result: Result) -> Section:
    ref = answer.reference_label(result)
    code = result.scenario.money.code
    frame = tables.comparison(result)
    named = decision.chosen(result)
    order = by_cash(range(len(result.options)), lambda i: result.options[i].total_cash_usd)
    frame = frame.iloc[order].reset_index(drop=True)  # by cost, the cheapest first
    rows = [result.options[i].name for i in order]
    marked = rows.index(named) if named in rows else None
    if marked is not None:
        frame.loc[marked, "option"] = f"{named} (recommended)"
    return Section(
        "comparison",
        "Comparison",
        text=[
            f"Cash over {result.scenario.horizon_months} months, {code}; NPV at"
            f" {result.scenario.discount_rate:.1%} a year; {code} per GPU-hour of work delivered,"
            f" counted in {ref} GPU-hours; utilisation: GPU-hours used / paid for; break-even: for"
            " an owned option, the first month from which it stays cheaper than the cheapest"
            " rented option that meets the service level. Sorted by cash; the recommendation is"
            " highlighted. Every figure is in summary.json and budget.xlsx."
        ],
        tables=[Table("", frame, cards=True, marked=marked)],
    )


def _break_even(result: Result) -> Section | None:
    frame = tables.break_even(result)
    if frame.empty:
        return None
    return Section(
        "break-even",
        "Break-even: owning against renting",
        text=[
            "Each owned option against each rented one that meets the service level: the month"
            " from which owning stays cheaper, and the volume of work at which both cost the same"
            " over the horizon (above it, owning is cheaper)."
        ],
        tables=[Table("", frame, prose=("times this scenario's work",))],
    )


def _carbon(result: Result) -> Section | None:
    frame = carbon.table(result)
    if frame.empty:
        return None
    return Section(
        "carbon",
        "Carbon",
        text=[
            "tCO2e over the horizon, the work unfinished at it included when the operation goes"
            " on (like its cost). In running: each server's IT energy (its maximum draw times the"
            " idle share while in service or billed, the busy share on the GPUs jobs use) times"
            " its data centre's PUE times the grid's intensity where it runs (location-based,"
            " annual). Embodied: a share of the servers' making for each hour they are held."
            " Sorted by tCO2e; every figure is in summary.json."
        ],
        tables=[
            Table("", frame, prose=("grid and PUE",)),
            Table("Where the figures come from", carbon.sources(result), prose=("source", "note")),
        ],
    )


def _chargeback(result: Result) -> Section | None:
    found = chargeback.billed(result)
    if found is None:
        return None
    o, b = found
    return Section(
        "chargeback",
        "Each team's bill",
        text=[chargeback.words(result, o, b)],
        tables=[
            Table(f"{o.name}, by team", chargeback.table(result, o, b)),
            Table("Each option, by team", chargeback.by_option(result)),
            Table(f"{o.name}, month by month", chargeback.monthly(result, b)),
        ],
    )


def _budget(result: Result, name: str) -> Section:
    sc = result.scenario
    o = result.option(name)
    s = Section(
        f"budget-{name}",
        f"Budget: {name}",
        text=[f"{registry.get(o.kind).label}: {o.description}."],
    )
    for view, frame in tables.by_view(tables.periods(result, o, "year")):
        title = f"Fiscal years (starting in month {sc.fiscal_year_start_month})"
        s.tables.append(Table(f"{title}, {view}", frame))
    s.tables.extend(Table(c, f) for c, f in tables.kind_tables(result, o))
    where = tables.places(result, o)
    if where is not None:  # jobs.csv's ran_on and cost_usd, summed
        caption = (
            "Where the jobs ran: each instance type at its price for the hours held, before"
            " commitments"
            if not registry.get(o.kind).buys_hardware
            else "Where the jobs ran: the option's cash shared out by GPU-hours used"
        )
        s.tables.append(Table(caption, where.reset_index(drop=True)))
    if o.cannot_run:
        rows = [(r, n, ", ".join(o.cannot_run_examples[r])) for r, n in o.cannot_run.items()]
        frame = pd.DataFrame(rows, columns=["reason", "jobs", "examples"])
        s.tables.append(Table("Jobs that cannot run", frame, prose=("reason", "examples")))
    notes = [
        f"{k.removesuffix('_usd').replace('_', ' ')}: {answer.usd(v, result.scenario.money)}"
        for k, v in o.ledger.notes.items()
        if k.endswith("_usd")
    ]
    if notes:
        s.lists.append(("Notes", notes))
    return s


def _months(result: Result, name: str) -> Section:
    """An option's budget by quarter and month by month (folded: the longest tables)."""
    o = result.option(name)
    s = Section(
        f"months-{name}",
        f"Quarters and months: {name}",
        folded=f"Quarters and {result.scenario.horizon_months} months of {name} (folded)",
    )
    for view, frame in tables.by_view(tables.periods(result, o, "quarter")):
        s.tables.append(Table(f"Quarters, {view}", frame))
    for view, frame in tables.by_view(tables.monthly(result, o)):
        s.tables.append(Table(f"Month by month, {view}", frame))
    return s


def sections(result: Result, chart_names: list[str]) -> list[Section]:
    out = [_answer(result)]
    if result.price_warnings:
        out.append(
            Section(
                "warnings",
                "Warnings about this run",
                lists=[("", list(result.price_warnings))],
                box="warnings",
            )
        )
    out.append(_comparison(result))
    be = _break_even(result)
    if be is not None:
        out.append(be)
    co2 = _carbon(result)
    if co2 is not None:
        out.append(co2)
    teams = _chargeback(result)
    if teams is not None:
        out.append(teams)
    # The charts of the decision open, the others folded (a print keeps to the decision).
    first = [n for n in chart_names if n in charts.DECISION]
    more = [n for n in chart_names if n not in charts.DECISION]
    out.append(Section("charts", "Charts", charts=first, new_page=True))
    if more:
        out.append(
            Section("more-charts", "More charts", charts=more, folded=f"{len(more)} more charts")
        )
    # The budgets of the recommendation and its runner-up open; the others folded (a reader
    # opens one; the print keeps to the decision).
    shown = {decision.chosen(result), decision.runner_up(result)}
    ordered = by_cash(result.options, lambda x: x.total_cash_usd)
    for o in [x for x in ordered if x.name in shown] + [x for x in ordered if x.name not in shown]:
        s = _budget(result, o.name)
        if o.name not in shown:
            s.folded = f"Quarters, fiscal years and what {o.name} holds (folded)"
        s.new_page = o.name == decision.chosen(result)  # the budgets start on a page of their own
        out += [s, _months(result, o.name)]
    return out + _back_matter(result)


def _back_matter(result: Result) -> list[Section]:
    """Prices and their sources, every price (folded), assumptions (folded), what is left out."""
    out: list[Section] = []
    out.append(
        Section(
            "prices",
            "Prices and their sources",
            new_page=True,
            text=[provenance.mode(result)],
            tables=[
                Table("Sources and their dates", provenance.dates(result), prose=("used by",)),
            ],
        )
    )
    out.append(
        Section(
            "every-price",
            "Every price and cost figure used",
            folded="Every price with its source, date and detail (folded; also in budget.xlsx)",
            tables=[
                Table("", tables.prices(result, plain=True), prose=("item", "source", "detail"))
            ],
        )
    )
    out.append(
        Section(
            "assumptions",
            "Assumptions",
            folded="Every input and default with its source (folded)",
            text=[
                "Every input of the scenario, with the defaults it did not override, then the"
                " model's own defaults and their sources. The key is where to change it in the"
                " scenario file."
            ],
            tables=[
                Table(
                    "",
                    tables.assumptions(result),
                    prose=("value", "source"),
                )
            ],
        )
    )
    out.append(Section("left-out", "What this model leaves out", lists=[("", list(LEFT_OUT))]))
    return out


def _title(result: Result) -> str:
    sc = result.scenario
    return f"{sc.name}: buy or rent GPUs, {sc.horizon_months} months from {sc.start}"


def _meta(result: Result) -> str:
    sc = result.scenario
    return (
        f"Scenario {result.scenario_file} (sha256 {result.scenario_sha256[:12]}), seed {sc.seed},"
        f" region {sc.region}, {len(result.jobs):,} jobs, tco {result.version}. {sc.money.note()}"
    )


@dataclass
class HtmlTable:
    """A table as the template lays it out: headers, text cells, which columns are numbers."""

    caption: str
    headers: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    prose: list[bool]
    cards: bool
    marked: int | None


def _html_table(t: Table) -> HtmlTable:
    cols = [str(c) for c in t.frame.columns]
    text = as_text(t.frame)
    return HtmlTable(
        caption=t.caption,
        headers=cols,
        rows=[[str(v) for v in row] for row in text.itertuples(index=False)],
        numeric=[pd.api.types.is_numeric_dtype(t.frame[c]) for c in t.frame.columns],
        prose=[c in t.prose for c in cols],
        cards=t.cards,
        marked=t.marked,
    )


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("tco.reports", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(result: Result, charts: list[Chart], pngs: dict[str, bytes]) -> str:
    """One self-contained HTML file: charts embedded as data URIs, no external references."""
    titles = {c.name: c.title for c in charts}
    return render_page(
        _title(result),
        _meta(result),
        (result.scenario.description or "").strip(),
        sections(result, [c.name for c in charts]),
        {name: (titles[name], png) for name, png in pngs.items() if name in titles},
    )


def render_page(
    title: str,
    meta: str,
    description: str,
    parts: list[Section],
    charts: dict[str, tuple[str, bytes]],
) -> str:
    """A page built like the report (its template, styles, phone layout and print styles) of
    ``parts``; ``charts``: name -> (title, PNG bytes), embedded as data URIs."""
    env = _environment()
    return env.get_template("report.html.j2").render(
        title=title,
        meta=meta,
        description=description,
        sections=parts,
        table=_html_table,
        charts={n: (t, base64.b64encode(png).decode("ascii")) for n, (t, png) in charts.items()},
        css=env.loader.get_source(env, "report.css")[0],  # type: ignore[union-attr]
        print_css=env.loader.get_source(env, "print.css")[0],  # type: ignore[union-attr]
    )


def render_markdown(result: Result, charts: list[Chart], chart_dir: str) -> str:
    """The same report in Markdown; charts are PNG files in ``chart_dir`` beside it."""
    # Every piece of text is plain text (names and sources from the scenario among it): escaped
    # with md_text, so a name holding HTML or Markdown shows as written and does nothing.
    md = md_text
    titles = {c.name: c.title for c in charts}
    lines = [f"# {md(_title(result))}", "", md(_meta(result)), ""]
    if result.scenario.description:
        lines += [md(result.scenario.description.strip()), ""]
    for s in sections(result, [c.name for c in charts]):
        lines += [f"## {md(s.title)}", ""]
        quote = "> " if s.box else ""
        if s.headline:
            lines += [f"**{md(s.headline)}**", ""]
        for t in s.text:
            lines += [md(t), ""]
        for heading, items in s.lists:
            if heading:
                lines += [f"{quote}**{md(heading)}**", quote.rstrip()]
            lines += [f"{quote}- {md(item)}" for item in items] + [""]
        for name in s.charts:
            lines += [f"![{md(titles[name])}]({Path(chart_dir) / (name + '.png')})", ""]
        for tb in s.tables:
            if tb.caption:
                lines += [f"### {md(tb.caption)}", ""]
            lines += [markdown_table(tb.frame), ""]
    return "\n".join(lines)
