"""``tco catalog gpus GPU``: every instance with that GPU across providers, as a table that fits
the terminal (columns dropped, never a name cut or a word broken), or as JSON or CSV for
scripts; and any catalogue listing as JSON or CSV (:func:`listing`)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from datetime import date
from typing import Any

import click

from tco.cli_common import BadInput, console
from tco.pricing import offers_view
from tco.pricing.offers_view import STALE_DAYS

FORMATS = ("table", "json", "csv")


def offers(gpu: str | None, provider: str | None, spot: bool, doubtful: bool, fmt: str) -> None:
    try:
        found = offers_view.rows(gpu, provider, spot, doubtful)
    except ValueError as exc:
        raise BadInput(f"tco catalog gpus: {exc}") from None
    if not found:
        raise BadInput(f"tco catalog gpus: no instance with {gpu or 'a GPU'} matches")
    today = date.today()
    if fmt != "table":
        click.echo(_machine(found, fmt, today), nl=False)
        return
    _table(found, gpu, today)


def listing(kind: str, header: list[str], rows: list[list[str]], fmt: str) -> str:
    """A catalogue listing (GPUs, servers, interconnects, AWS instances, kinds) as JSON (one
    object a row, keyed by the table's headers) or CSV, every column and its source whole."""
    if fmt == "json":
        items = [dict(zip(header, row, strict=True)) for row in rows]
        return json.dumps({"catalog": kind, "rows": items}, indent=2) + "\n"
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _machine(found: list[Any], fmt: str, today: date) -> str:
    rows = [
        {
            **asdict(r),
            "usd_per_gpu_hour": round(r.per_gpu, 6),
            "spot_usd_per_gpu_hour": None if r.spot is None else round(r.spot / r.gpus, 6),
            "age_days": r.age_days(today),
            "stale": r.age_days(today) > STALE_DAYS,
        }
        for r in found
    ]
    if fmt == "json":
        return json.dumps({"as_of_today": today.isoformat(), "offers": rows}, indent=2) + "\n"
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


# Columns by priority (the first kept always; the rest while the terminal has room), each with
# its header and how a row shows it. The instance's name is shown whole: it is what a scenario
# names (0.21.0 cut it with an ellipsis).
_SHORT = {"listed": "listed", "secondary": "second", "marketplace": "market", "doubtful": "DOUBT"}


def _columns(today: date) -> list[tuple[str, Any]]:
    def usd(x: float | None) -> str:
        return "-" if x is None else f"{x:,.2f}"

    return [
        ("instance", lambda r: r.instance_type),
        ("$/GPU-h", lambda r: usd(r.per_gpu)),
        ("GPUs", lambda r: f"{r.gpus}x {r.gpu}"),
        ("as of", lambda r: r.date_words(today)),
        ("spot $/GPU-h", lambda r: usd(None if r.spot is None else r.spot / r.gpus)),
        ("source", lambda r: _SHORT.get(r.confidence, r.confidence)),
        ("region", lambda r: r.region),
        ("$/h", lambda r: usd(r.on_demand)),
        ("spot $/h", lambda r: usd(r.spot)),
        ("GB/GPU", lambda r: f"{r.gpu_memory_gb:g}"),
    ]


def _table(found: list[Any], gpu: str | None, today: date) -> None:
    from rich.table import Table

    out = console()
    cols = _columns(today)
    cells = [[show(r) for _, show in cols] for r in found]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, (h, _) in enumerate(cols)]
    keep, used = [0], widths[0] + 2  # the name whole, then the columns the rest has room for
    for i in range(1, len(cols)):
        if used + widths[i] + 2 <= out.width:
            keep.append(i)
            used += widths[i] + 2
    table = Table(
        title=f"GPU instances: {gpu or 'all'} (cheapest region of each type)",
        title_justify="left",
        box=None,
        padding=(0, 2, 0, 0),  # two spaces after each column: what the widths above count
        pad_edge=False,
        header_style="bold",
    )
    for i in keep:
        head = cols[i][0]
        table.add_column(
            head,
            no_wrap=True,
            min_width=widths[i] if i == 0 else None,
            justify="left"
            if head in ("instance", "GPUs", "as of", "source", "region")
            else "right",
        )
    for c in cells:
        table.add_row(*(c[i] for i in keep))
    out.print(table)
    left = [cols[i][0] for i in range(len(cols)) if i not in keep]
    click.echo(
        "As of: the date the price held; <= a date it held by (copied then from SkyPilot's"
        f" catalogue, whose commit dates were not read); old: over {STALE_DAYS} days before today."
        " Spot: AWS's mean over AZs; others' as their source quotes it. source: listed, second"
        " (a secondary copy), market (a marketplace median); doubtful rows hidden (--doubtful)."
        + (
            f" Left out for width: {', '.join(left)} (--format csv has every field)."
            if left
            else ""
        )
    )


def print_listing(kind: str, header: list[str], rows: list[list[str]]) -> None:
    """A catalogue listing as a terminal table. A source is a citation with its address: in
    --format csv or json, where it reads whole, not folded a few letters a line down a terminal
    (0.21.0: 713 lines for 16 GPUs)."""
    from rich.table import Table

    shown = [i for i, col in enumerate(header) if col != "source"]
    table = Table(title=f"tco catalog: {kind}")
    for i in shown:
        table.add_column(header[i], no_wrap=i == 0)  # a name whole; other cells wrap at spaces
    for row in rows:
        table.add_row(*(row[i] for i in shown))
    console().print(table)
    if len(shown) < len(header):
        click.echo(f"Each row's source: tco catalog {kind} --format csv (or json).")
