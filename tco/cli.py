"""The ``tco`` command: thin over the library. Each command parses, calls one function, renders.

Domain errors (a bad scenario, an unknown or unavailable price) become one line on stderr and
exit code 2 at one boundary (:func:`main`); ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tco.cli_common import (
    EXIT_BAD_INPUT,
    TABLE_FORMAT_OPTION,
    BadInput,
    one_line,
)
from tco.cli_fit import fit
from tco.cli_optimize import optimize
from tco.cli_prices import prices
from tco.cli_simulate import simulate
from tco.cli_sweep import sweep
from tco.cli_track import track
from tco.cli_workload import workload
from tco.pricing.errors import PricingError
from tco.simulator.core.errors import RunFailed, ScenarioError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tco", prog_name="tco")
@click.option("--debug", is_flag=True, help="Show the full traceback of errors.")
def cli(debug: bool) -> None:
    """Buy or rent GPUs for deep-learning training: simulate a scenario on every option.

    \b
    Example:
      tco simulate scenarios/lab.yaml
    """


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), default="scenario.yaml")
@click.option(
    "--template",
    type=click.Choice(["lab", "personal", "industrial"]),
    default="lab",
    show_default=True,
    help="Which shipped scenario to start from.",
)
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
def init(path: Path, template: str, force: bool) -> None:
    """Write a commented starter scenario to PATH (default: scenario.yaml).

    \b
    Example:
      tco init --template personal my-workstation.yaml
    """
    from importlib import resources

    if path.exists() and not force:
        raise BadInput(f"{path} exists; choose another path or pass --force")
    text = resources.files("tco.templates").joinpath(f"{template}.yaml").read_text("utf-8")
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {path} (from the {template} template); edit it, then: tco simulate {path}")


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
def validate(scenario: Path) -> None:
    """Check SCENARIO and say what it describes, or what is wrong.

    Instance types and every price a run needs are checked against the bundled price snapshot.

    \b
    Example:
      tco validate scenarios/lab.yaml
    """
    from tco.pricing.book import PriceBook
    from tco.simulator.engine.one_offs import too_long
    from tco.simulator.run import resolve_plans
    from tco.simulator.scenario.model import load_scenario
    from tco.simulator.workload.derived import derived

    book = PriceBook()
    sc = load_scenario(scenario, book)
    plans = resolve_plans(sc, book, str(scenario))  # the prices a run needs, from the snapshot
    w = sc.workload
    runs = f", {len(w.runs)} one-off run(s)" if w.runs else ""
    click.echo(
        f"{scenario}: valid. {sc.name}: {sc.horizon_months} months from {sc.start}, "
        f"{len(w.job_classes)} job class(es){runs}, options: "
        + ", ".join(f"{o.name} ({o.kind})" for o in sc.options)
    )
    for d in derived(w):
        click.echo(f"  {d.words}")
    for line in too_long(sc, plans):
        click.echo(f"  Cannot finish within the horizon: {line}.")


@cli.command()
@click.argument(
    "kind",
    type=click.Choice(["gpus", "servers", "interconnects", "instances", "kinds"]),
    default="servers",
)
@click.argument("gpu", required=False)
@click.option("--provider", help="Only this provider's instances (with GPU).")
@click.option("--spot", is_flag=True, help="Only instances with a spot price, sorted by it.")
@click.option("--doubtful", is_flag=True, help="Show doubtful prices too (marked).")
@TABLE_FORMAT_OPTION
def catalog(
    kind: str, gpu: str | None, provider: str | None, spot: bool, doubtful: bool, fmt: str
) -> None:
    """List the hardware catalog: GPU models, servers to buy, interconnects, or AWS instances;
    with a GPU (gpus H100, gpus H100:8), every instance with it across providers, cheapest per
    GPU-hour first, from the bundled snapshots (no credentials, no network); or the option
    kinds and what each can do beyond play and price (kinds), with why not.

    GPUs come with their training speed relative to an A100 SXM 40GB (all workloads, 1 and 8
    GPUs), whether it is measured or modelled, and how far it spreads.

    \b
    Example:
      tco catalog servers
      tco catalog gpus
      tco catalog gpus H100:8
      tco catalog gpus A100 --spot --provider gcp
      tco catalog instances H100:8 --provider lambda
      tco catalog gpus H100:8 --format json
      tco catalog kinds
    """
    from tco.pricing import views

    if gpu is not None or provider is not None or spot or doubtful:
        if kind not in ("gpus", "instances"):  # both list the instances with that GPU
            raise BadInput(
                "a GPU, --provider, --spot and --doubtful go with `tco catalog gpus` or"
                " `tco catalog instances`"
            )
        from tco.cli_catalog import offers

        offers(gpu, provider, spot, doubtful, fmt)
        return
    header, rows = _kinds() if kind == "kinds" else views.catalog_rows(kind)
    if kind == "gpus":
        header, rows = _with_speeds(header, rows)
    from tco.cli_catalog import listing, print_listing

    if fmt != "table":
        click.echo(listing(kind, header, rows, fmt), nl=False)
        return
    print_listing(kind, header, rows)


def _with_speeds(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    from tco.simulator.workload.calibration import speed_of

    extra = ["speed x A100 (1 GPU)", "8 GPUs", "basis", "spread"]
    out = []
    for row in rows:
        s = speed_of(row[0])
        band = f"x{s.spread:.2f}" if s.spread > 1 else "-"
        out.append(
            [*row[:-1], f"{s.score():.3f}", f"{s.score('all', 8):.3f}", s.basis, band, row[-1]]
        )
    return [*header[:-1], *extra, header[-1]], out


@cli.command()
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "json", "github", "html"]),
    default="md",
    show_default=True,
    help="Markdown tables for people, JSON for tools, github: a pull-request comment, html:"
    " a page built like the report.",
)
@click.option(
    "--fail-if",
    "fail_if",
    multiple=True,
    metavar="CONDITION",
    help="Exit 1 when the change passes a threshold, e.g. 'cash > +10%',"
    " 'recommended.cash > 5000', 'own-8xA40.p95_wait > 12', 'recommendation changed'"
    " (repeatable; grammar: tco.reports.gate).",
)
@click.option(
    "--monthly",
    is_flag=True,
    help="Add the recommendation's cash month by month on each side, with the change and its"
    " running sum (months lined up by calendar month).",
)
def compare(old: Path, new: Path, fmt: str, fail_if: tuple[str, ...], monthly: bool) -> None:
    """What changed between two runs: totals, recommendation, prices, inputs.

    OLD and NEW are summary.json files or report folders. With --fail-if the command exits 1
    when any condition holds (2 for bad input), so a build can gate on a budget. --monthly
    adds the recommendation's cash month by month on each side, the change and its sum.

    \b
    Example:
      tco compare tco-report/research-lab-2026 tco-report/research-lab
      tco compare old/ new/ --format github --fail-if 'cash > +10%'
      tco compare old/ new/ --monthly
    """
    import json

    from tco.reports import compare as diff
    from tco.reports import compare_monthly, gate

    try:
        gates = [gate.parse(g) for g in fail_if]
        docs = diff.load(old), diff.load(new)
        result = diff.compare(*docs)
        if monthly:
            result["monthly"] = compare_monthly.monthly(*docs, old, new)
        failed = [f"{g.text}: {', '.join(h)}" for g in gates if (h := gate.hits(result, g))]
    except (diff.CompareError, gate.GateError) as exc:
        raise BadInput(str(exc)) from None
    if fmt == "json":
        click.echo(json.dumps({**result, "failed": failed} if fail_if else result, indent=2))
    elif fmt == "github":
        click.echo(diff.to_github(result, failed), nl=False)
    elif fmt == "html":
        click.echo(diff.to_html(result), nl=False)
    else:
        click.echo(diff.to_markdown(result), nl=False)
    if failed:
        for f in failed:
            click.echo(f"tco: --fail-if {f}", err=True)
        raise SystemExit(1)


cli.add_command(fit)
cli.add_command(optimize)
cli.add_command(prices)
cli.add_command(simulate)
cli.add_command(sweep)
cli.add_command(track)
cli.add_command(workload)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning domain errors into one line and exit code 2."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        cli.main(args=args, prog_name="tco", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.UsageError as exc:  # one line, as every other bad input
        cmd = f"tco {exc.ctx.command_path.removeprefix('tco ')}" if exc.ctx else "tco"
        BadInput(f"{exc.format_message()} (see `{cmd} --help`)").show()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (ScenarioError, PricingError) as exc:
        if debug:
            raise
        BadInput(str(exc)).show()
        sys.exit(EXIT_BAD_INPUT)
    except RunFailed as exc:  # not the input's fault: one line, exit code 1
        if debug:
            raise
        click.echo(f"tco: error: {one_line(str(exc))}", err=True)
        sys.exit(1)
    except OSError as exc:  # a file or folder that cannot be read or written
        if debug:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        BadInput(f"{where}{exc.strerror or exc}").show()
        sys.exit(EXIT_BAD_INPUT)


__all__ = ["cli", "main"]


def _kinds() -> tuple[list[str], list[list[str]]]:
    """Each option kind and capability: yes, or why not (``kinds.capabilities``)."""
    from tco.simulator.kinds import registry

    rows = [
        [kind, cap.word, "yes" if not why else f"no: {why}", cap.meaning]
        for kind, cap, why in registry.capabilities()
    ]
    return ["kind", "capability", "can", "what it means"], rows
