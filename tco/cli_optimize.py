"""``tco optimize``: how much to buy or commit to, searched option by option and as mixes."""

from __future__ import annotations

from pathlib import Path

import click

from tco.cli_common import BadInput, warn


@click.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Folder for the files [default: tco-report/<scenario>/optimize/].",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors and warnings.")
def optimize(scenario: Path, out_dir: str | None, quiet: bool) -> None:
    """Search each option's numeric choices (owned servers; Savings Plan commitment, term and
    payment) for the cheapest configuration meeting the service level, on the same jobs; write
    frontier.csv, optimize.json and optimize.html.

    \b
    Example:
      tco optimize scenarios/lab.yaml
    """
    from tco.pricing.book import PriceBook
    from tco.reports.formats import folder_name
    from tco.reports.manifest import begin
    from tco.reports.optimize_files import write_optimize
    from tco.simulator.advice.optimize import best
    from tco.simulator.advice.portfolio import optimize_with_mixes as search
    from tco.simulator.run import load_file, prepare

    if out_dir is not None and not out_dir.strip():
        raise BadInput("--out: give a folder for the files (an empty path is not one)")
    book = PriceBook("snapshot")
    sc, digest = load_file(scenario, book)
    prepared = prepare(sc, book, str(scenario), digest)
    target = Path(out_dir) if out_dir else Path("tco-report") / folder_name(sc.name) / "optimize"
    begin(target)  # a folder that cannot be written fails now, not after the work
    configs = search(prepared, book)
    written = write_optimize(prepared, configs, target)
    warn(book)
    if not quiet:
        b = best(configs)
        if b is None:
            click.echo(f"{len(configs)} configurations: none meets the service level.")
        else:
            click.echo(
                f"{len(configs)} configurations; best meeting the service level: {b.option}:"
                f" {b.words}, at {sc.money.text(b.cash_usd)} cash (p95 delay"
                f" {b.p95_delay_h:,.1f} h)"
            )
        for name in dict.fromkeys(c.option for c in configs):  # the best of each, in words
            mine = best([c for c in configs if c.option == name])
            click.echo(
                f"  {name}: none of its configurations meets the level"
                if mine is None
                else f"  {name}: {sc.money.text(mine.cash_usd)}, p95 delay"
                f" {mine.p95_delay_h:,.1f} h: {mine.words}"
            )
        click.echo(f"Optimize in {target}/: {', '.join(p.name for p in written)}")
