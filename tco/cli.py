"""The ``tco`` command: thin over the library. Each command parses, calls one function, renders.

Domain errors (a bad scenario, an unknown price) become one line on stderr and exit code 2 at one
boundary (:func:`main`); ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pricing.errors import PricingError
from reports import files, terminal
from simulator.errors import ScenarioError
from simulator.run import run_file, version
from simulator.scenario import load_scenario

EXIT_BAD_INPUT = 2


class BadInput(click.ClickException):
    """A user-fixable problem: one line, exit code 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: object = None) -> None:
        click.echo(f"tco: error: {self.message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version(), prog_name="tco")
@click.option("--debug", is_flag=True, help="Show the full traceback of errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Buy or rent GPUs for deep-learning training: simulate a scenario on every option.

    \b
    Example:
      tco simulate scenarios/lab.yaml
    """
    ctx.obj = {"debug": debug}


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report directory [default: tco-report/<scenario name>/].",
)
@click.option("--seed", type=click.IntRange(min=0), help="Override the scenario's seed.")
@click.option("--months", type=click.IntRange(1, 120), help="Override the horizon in months.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def simulate(
    scenario: Path, out_dir: Path | None, seed: int | None, months: int | None, quiet: bool
) -> None:
    """Simulate SCENARIO on every option; print the comparison and write the report.

    \b
    Example:
      tco simulate scenarios/lab.yaml --out /tmp/lab --seed 7
    """
    result = run_file(scenario, seed=seed, months=months)
    target = out_dir or Path("tco-report") / result.scenario.name
    written = files.write_data(result, target)
    if not quiet:
        terminal.print_summary(result)
        click.echo(f"Report: {', '.join(str(p) for p in written)}")


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
def validate(scenario: Path) -> None:
    """Check SCENARIO and say what it describes, or what is wrong.

    \b
    Example:
      tco validate scenarios/lab.yaml
    """
    sc = load_scenario(scenario)
    click.echo(
        f"{scenario}: valid. {sc.name}: {sc.horizon_months} months from {sc.start}, "
        f"{len(sc.workload.job_classes)} job class(es), options: "
        + ", ".join(f"{o.name} ({o.kind})" for o in sc.options)
    )


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning domain errors into one line and exit code 2."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        cli.main(args=args, prog_name="tco", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
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
