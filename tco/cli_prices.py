"""``tco prices``: show, refresh and snapshot AWS prices; import a price list of your own."""

from __future__ import annotations

from pathlib import Path

import click

from tco.cli_common import (
    OFFLINE_OPTION,
    PRICES_OPTION,
    TABLE_FORMAT_OPTION,
    console,
    price_book,
    progress,
    warn,
)


@click.group()
def prices() -> None:
    """Show, refresh and snapshot AWS prices.

    \b
    Example:
      tco prices show p4d.24xlarge --region us-east-1
    """


@prices.command("show")
@click.argument("instance_type")
@click.option("--region", default="us-east-1", show_default=True)
@TABLE_FORMAT_OPTION
@PRICES_OPTION
@OFFLINE_OPTION
def prices_show(instance_type: str, region: str, fmt: str, prices: str, offline: bool) -> None:
    """Print what tco would use for INSTANCE_TYPE, and where each figure comes from.

    \b
    Example:
      tco prices show p4d.24xlarge --region us-east-1
      tco prices show p5.48xlarge --prices live
      tco prices show lambda:gpu_8x_h100_sxm5 --format json
    """
    from rich.table import Table

    from tco.pricing import views

    with price_book(prices, offline) as book:
        rows = views.price_rows(book, instance_type, region)
    warn(book)
    if fmt != "table":
        click.echo(_machine(instance_type, region, rows, fmt), nl=False)
        return
    table = Table(title=f"{instance_type} in {region}")
    for col in ("what", "value", "source"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console().print(table)


def _machine(instance_type: str, region: str, rows: list[tuple[str, str, str]], fmt: str) -> str:
    """The rows as JSON (with the instance and region) or CSV (what, value, source)."""
    import csv
    import io
    import json

    records = [{"what": w, "value": v, "source": s} for w, v, s in rows]
    if fmt == "json":
        doc = {"instance_type": instance_type, "region": region, "rows": records}
        return json.dumps(doc, indent=2) + "\n"
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=["what", "value", "source"], lineterminator="\n")
    w.writeheader()
    w.writerows(records)
    return buf.getvalue()


@prices.command("refresh")
@click.argument("instance_types", nargs=-1)
@click.option("--region", "regions", multiple=True, default=["us-east-1"], show_default=True)
@OFFLINE_OPTION
def prices_refresh(
    instance_types: tuple[str, ...], regions: tuple[str, ...], offline: bool
) -> None:
    """Fetch live prices now and store them in the cache (all snapshot types if none given).

    \b
    Example:
      tco prices refresh p4d.24xlarge p5.48xlarge --region us-east-1 --region us-west-2
    """
    from tco.pricing import snapshot

    with price_book("live", offline) as book, progress(quiet=False) as tick:
        for region in regions:
            for t in instance_types or snapshot.instance_types(region):
                tick(f"fetching {t} in {region}")
                e = book.entry(t, region)
                click.echo(f"{t} in {region}: {e.source}, as of {e.as_of}")
    warn(book)


@prices.command("snapshot")
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the new snapshot JSON.",
)
@click.option(
    "--region", "regions", multiple=True, default=["us-east-1", "us-west-2"], show_default=True
)
@OFFLINE_OPTION
def prices_snapshot(out: Path, regions: tuple[str, ...], offline: bool) -> None:
    """Regenerate the price snapshot from live AWS calls for the bundled instance types.

    Copy the file over pricing/data/aws_snapshot.json to ship it.

    \b
    Example:
      tco prices snapshot --out /tmp/aws_snapshot.json
    """
    from tco.pricing import snapshot
    from tco.pricing.entry import snapshot_json
    from tco.pricing.refresh import build_snapshot

    with price_book("live", offline) as book:
        types = sorted({t for r in regions for t in snapshot.instance_types(r)})
        doc = build_snapshot(book, list(regions), types)
    out.write_text(snapshot_json(doc), encoding="utf-8")
    warn(book)
    click.echo(
        f"wrote {out}: {sum(len(v) for v in doc['regions'].values())} entries, as of {doc['as_of']}"
    )


@prices.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--provider", required=True, help="The name scenarios will use: NAME:instance_type.")
@click.option("--source", required=True, help="Where the prices come from (a quote, a page).")
@click.option("--as-of", "as_of", required=True, help="The date of the prices, YYYY-MM-DD.")
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write tco's price CSV.",
)
def prices_import(file: Path, provider: str, source: str, as_of: str, out: Path) -> None:
    """Read a price list in SkyPilot's catalog layout (InstanceType, AcceleratorName,
    AcceleratorCount, vCPUs, MemoryGiB, Price, Region, SpotPrice, ...) or tco's own CSV, and
    write tco's CSV; a scenario names it under price_files: and rents from it as
    PROVIDER:instance_type.

    \b
    Example:
      tco prices import acme_vms.csv --provider acme --source "Acme quote 2026-11" \\
          --as-of 2026-11-15 -o acme.csv
    """
    import datetime as dt
    import re

    from tco.cli_common import BadInput
    from tco.pricing.providers import shipped, user_file
    from tco.simulator.core.atomic import write_text
    from tco.simulator.core.input_files import InputFileError, read_input

    if not re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", provider) or provider in shipped():
        raise BadInput(
            f"--provider: {provider!r} must be a lowercase name (letters, digits, - or _) other"
            f" than tco's own: {', '.join(shipped())}"
        )
    try:
        dt.date.fromisoformat(as_of)
    except ValueError:
        raise BadInput(f"--as-of: {as_of!r} is not a date like 2026-11-15") from None
    try:
        rows = user_file.read(read_input(file, "a price list").decode("utf-8-sig"))
    except (InputFileError, UnicodeDecodeError, ValueError) as exc:
        raise BadInput(f"{file}: {exc}") from None
    write_text(out, user_file.write(rows, provider, source, as_of))
    click.echo(f"wrote {out}: {len(rows)} GPU instance prices of {provider}, as of {as_of}")
