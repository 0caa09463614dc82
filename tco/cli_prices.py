"""``tco prices``: show, refresh and snapshot AWS prices."""

from __future__ import annotations

from pathlib import Path

import click

from tco.cli_common import OFFLINE_OPTION, PRICES_OPTION, console, price_book, progress, warn


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
@PRICES_OPTION
@OFFLINE_OPTION
def prices_show(instance_type: str, region: str, prices: str, offline: bool) -> None:
    """Print what tco would use for INSTANCE_TYPE, and where each figure comes from.

    \b
    Example:
      tco prices show p4d.24xlarge --region us-east-1
      tco prices show p5.48xlarge --prices live
    """
    from rich.table import Table

    from tco.pricing import views

    with price_book(prices, offline) as book:
        rows = views.price_rows(book, instance_type, region)
    warn(book)
    table = Table(title=f"{instance_type} in {region}")
    for col in ("what", "value", "source"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console().print(table)


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
