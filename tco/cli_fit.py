"""``tco fit MODEL``: which GPUs can train a model, how many per job, how long, at what cost."""

from __future__ import annotations

import csv
import io
import json
import shutil
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from tco.cli_common import TABLE_FORMAT_OPTION, BadInput, console, options

CHINCHILLA_TOKENS_PER_PARAMETER = 20  # Hoffmann et al. 2022 (arXiv:2203.15556): compute-optimal


def _model_input(model: str) -> tuple[dict[str, Any], str]:
    """(the run's fields, where they came from): a bundled name, a YAML file, or a YAML mapping
    written on the command line."""
    from tco.simulator.core.input_files import InputFileError, read_input
    from tco.simulator.scenario.yaml_input import parse_yaml

    if model.lstrip().startswith("{"):
        text, where = model, "MODEL"
    elif model.endswith((".yaml", ".yml")) or Path(model).is_file():
        try:
            text, where = read_input(Path(model), "model file").decode("utf-8", "replace"), model
        except InputFileError as exc:
            raise BadInput(f"tco fit: {exc}") from None
    else:
        return {"model": model}, "MODEL"
    data = parse_yaml(text, where)
    if not isinstance(data, dict):
        raise BadInput(f"{where}: give a mapping: {{model: ..., tokens: ...}} or a model's shape")
    return (dict(data) if "model" in data else {"model": data}), where


def _work(model: str, given: dict[str, Any]) -> tuple[Any, str | None]:
    """The run to fit, and a note when its tokens are the compute-optimal default."""
    from pydantic import ValidationError

    from tco.simulator.scenario.explain import explain
    from tco.simulator.training.work import ModelWork, short

    data, where = _model_input(model)
    data.update({k: v for k, v in given.items() if v is not None})
    note = None
    try:
        if "tokens" not in data and "dataset_tokens" not in data:
            # Any count of at least one sequence reads the shape; the run's comes from it next.
            shape = ModelWork.model_validate({**data, "tokens": 1e12}).run()
            data["tokens"] = CHINCHILLA_TOKENS_PER_PARAMETER * shape.parameters
            if shape.architecture != "transformer":
                return ModelWork.model_validate(data), None
            note = (
                f"tokens: {short(data['tokens'])}, 20 per parameter (Chinchilla's compute-optimal"
                " ratio, Hoffmann et al. 2022); give --tokens for your own"
            )
        return ModelWork.model_validate(data), note
    except ValidationError as exc:
        field, msg = explain(ModelWork, dict(exc.errors()[0]), data)
        raise BadInput(f"tco fit: {where}: {field}: {msg}") from None


def _days(hours: float | None) -> str:
    return "-" if hours is None else f"{hours / 24:,.1f}"


def _days_range(x: Any) -> str:
    """Days and their P10-P90, "65 (42-102)"."""
    if x.hours is None:
        return "-"
    d = ",.1f" if x.hours < 240 else ",.0f"  # under ten days, tenths
    return f"{x.hours / 24:{d}} ({x.hours_p10 / 24:{d}}-{x.hours_p90 / 24:{d}})"


def _usd(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


# Where-to-train's columns (header, most characters), in the order shown; a narrow terminal
# leaves out the last of _DROP_FIRST first (the place, its GPUs, days and the two costs that
# answer "rent or own" stay at 80 columns).
_RUN_COLUMNS = (
    ("place", 24),
    ("GPUs", 15),
    ("days, P10-90", 13),
    ("demand $", 9),
    ("spot $", 9),
    ("owned $", 9),
    ("$/GPU-h", 7),
)
_DROP_FIRST = ("$/GPU-h", "spot $")


def _fitting(width: int) -> list[tuple[str, int]]:
    """The columns that fit ``width`` (each its most characters and a space either side)."""
    shown = list(_RUN_COLUMNS)
    for col in _DROP_FIRST:
        if sum(most + 2 for _, most in shown) <= width:
            break
        shown = [c for c in shown if c[0] != col]
    return shown


def _print(tab: Any, top: int, note: str | None, days: float | None) -> None:
    from rich.table import Table

    from tco.simulator.training.work import short

    r = tab.run
    if r.architecture != "transformer":
        say(
            f"{r.name}: {short(r.parameters)} parameters, micro-batch {r.micro_batch},"
            f" {r.precision.upper()}."
        )
    else:
        say(
            f"{r.name}: {short(r.parameters)} parameters, {short(r.tokens)} tokens, {r.method},"
            f" {r.precision.upper()}: {tab.flops:.3g} FLOPs, {tab.reference_hours:,.0f} A100"
            " SXM 80GB GPU-hours at the calibrated utilisation."
        )
    if note:
        say(note)
    fits = Table(title="GPUs that hold it (data-parallel, sharded as given)", title_justify="left")
    for col in ("GPU", "GB", "fewest GPUs", "GB a GPU", "speed x A100"):
        fits.add_column(col, no_wrap=True)
    for g in tab.gpus:
        fewest = "no count fits" if g.fewest is None else f"{g.fewest:,}"
        fits.add_row(g.gpu, f"{g.memory_gb:g}", fewest, f"{g.need_gb:.1f}", f"{g.score:.2f}")
    console().print(fits)
    if r.architecture != "transformer":
        say(
            f"{r.name} is a {r.architecture}: its memory is modelled, its training time is not"
            " (the utilisation is calibrated on transformers), so no time or cost is given."
        )
        return
    _print_places(tab, top, days)
    _cheapest(tab.rows, days)
    say(
        "* a price less sure than a provider's list: a marketplace median, a secondary"
        " report or an estimate (pricing/data/README.md)."
    )
    for n in tab.notes:
        say(f"- {n}")


def _print_places(tab: Any, top: int, days: float | None) -> None:
    """Where to train it: the cheapest ``top`` places, with the columns the terminal holds."""
    from rich import box
    from rich.table import Table

    rows = [x for x in tab.rows if x.cheapest_usd is not None][:top]
    within = "" if days is None else f" within {days:,g} days"
    runs = Table(
        title=f"Where to train it{within}, cheapest first ({len(rows)} of {len(tab.rows)})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
    )
    out = console()
    shown = _fitting(out.width)
    for col, most in shown:
        text = col in ("place", "GPUs")
        runs.add_column(
            col,
            no_wrap=True,
            overflow="ellipsis",
            max_width=most,
            min_width=None if text else len(col),
            justify="left" if text else "right",
        )
    for x in rows:
        mark = "" if x.confidence in ("listed", "list", "quote") else " *"
        cells = {
            "place": x.where + mark,
            "GPUs": f"{x.gpus} x {x.gpu}",
            "days, P10-90": _days_range(x),
            "demand $": _usd(x.on_demand_usd),
            "spot $": _usd(x.spot_usd),
            "owned $": _usd(x.owned_usd),
            "$/GPU-h": f"{x.usd_per_gpu_hour:.2f}",
        }
        runs.add_row(*(cells[col] for col, _ in shown))
    out.print(runs)
    if len(shown) < len(_RUN_COLUMNS):
        left = ", ".join(c for c in dict(_RUN_COLUMNS) if c not in dict(shown))
        say(f"(Narrower than the table: {left} left out; --format csv has every column.)")


def _cheapest(rows: Any, days: float | None) -> None:
    """The cheapest rental and the cheapest owned place, each on its own line: an owned floor
    (years of full use) is not a price for one run, so the two are never ranked together."""
    from tco.simulator.fit.gpu_fit import OWNED_YEARS

    rent = next((x for x in rows if x.on_demand_usd is not None), None)
    own = next((x for x in rows if x.owned_usd is not None), None)
    if rent is None and own is None:
        within = "" if days is None else f" within {days:,g} days"
        say(f"No place in the catalogue trains it{within} (see --format json for why).")
    if rent is not None:
        say(
            f"Cheapest to rent: {rent.where} ({rent.region}), {rent.gpus} x {rent.gpu},"
            f" ${rent.on_demand_usd:,.0f} on demand over {_days(rent.hours)} days (USD; price"
            f" as of {rent.as_of}, {rent.confidence})."
        )
    if own is not None:
        say(
            f"Cheapest to own: {own.where}, {own.gpus} x {own.gpu}, ${own.owned_usd:,.0f}"
            f" over {_days(own.hours)} days at an owned floor rate (the servers' price less"
            f" resale over {OWNED_YEARS:g} years of full use; USD, price as of {own.as_of},"
            f" {own.confidence})."
        )


def say(text: str) -> None:
    click.echo(textwrap.fill(text, width=min(100, shutil.get_terminal_size((100, 24)).columns)))


def _rows_out(tab: Any) -> list[dict[str, Any]]:
    return [{**asdict(x), "cheapest_usd": x.cheapest_usd} for x in tab.rows]


# How the run trains (as a scenario's work: takes it); each default is the model's own.
_WORK_OPTIONS = [
    click.option("--tokens", help="Tokens to train on (7e9, 2T); default 20 per parameter."),
    click.option("--dataset-tokens", help="A fine-tune's dataset, in tokens (with --epochs)."),
    click.option("--epochs", type=float, help="Passes over --dataset-tokens."),
    click.option("--method", type=click.Choice(["pretrain", "full", "lora"])),
    click.option("--precision", type=click.Choice(["fp32", "bf16", "fp16", "fp8", "fp4"])),
    click.option("--optimizer", type=click.Choice(["adam", "sgd"])),
    click.option("--sharding", type=click.Choice(["none", "optimizer", "gradients", "full"])),
    click.option("--micro-batch", type=click.IntRange(1, 100_000), help="Sequences a GPU a step."),
    click.option("--sequence", type=click.IntRange(1, 10_000_000), help="Sequence length."),
]


@click.command()
@click.argument("model")
@options(_WORK_OPTIONS)
@click.option(
    "--gpus",
    type=click.IntRange(1, 100_000),
    default=1,
    show_default=True,
    help="GPUs a job runs on, at least (more where the memory needs them).",
)
@click.option(
    "--days",
    type=click.FloatRange(min=0, min_open=True, max=3653),
    help="Finish within these days: each place on the fewest GPUs that do.",
)
@click.option("--provider", help="Only this provider's instances (no owned servers).")
@click.option("--doubtful", is_flag=True, help="Include doubtful cloud prices.")
@click.option(
    "--top",
    type=click.IntRange(1, 10_000),
    default=15,
    show_default=True,
    help="Places shown in the terminal.",
)
@TABLE_FORMAT_OPTION
def fit(
    model: str,
    fmt: str,
    top: int,
    gpus: int,
    days: float | None,
    provider: str | None,
    doubtful: bool,
    **given: Any,
) -> None:
    """Which GPUs can train MODEL, how many per job, how long, and what the run costs on
    demand, on spot and on owned servers, cheapest first: from the bundled price snapshots,
    offline. MODEL is a bundled model (llama-2-7b, llama-3.1-70b, mistral-7b, bert-base,
    resnet-50, ...), a YAML file, or a YAML mapping: a model's shape, or {model, tokens, ...}
    as a scenario's work: takes it.

    \b
    Example:
      tco fit llama-2-7b --tokens 2T
      tco fit llama-2-7b --tokens 2T --days 120
      tco fit llama-2-70b --method lora --dataset-tokens 50M --epochs 3
      tco fit '{parameters: 1.3B, layers: 24, hidden: 2048, heads: 16, sequence: 2048}'
      tco fit llama-3.1-8b --precision fp8 --format json
    """
    from tco.pricing.book import PriceBook
    from tco.pricing.errors import PricingError
    from tco.simulator.fit import gpu_fit

    work, note = _work(model, given)
    run = work.run()
    try:
        tab = gpu_fit.table(run, PriceBook(mode="snapshot"), provider, doubtful, gpus, days)
    except PricingError as exc:
        raise BadInput(f"tco fit: {exc}") from None
    if fmt == "table":
        _print(tab, top, note, days)
    else:
        click.echo(_machine(tab, fmt, note, days), nl=False)


def _machine(tab: Any, fmt: str, note: str | None, days: float | None) -> str:
    """The table as JSON (the run, every GPU, every place) or CSV (the places)."""
    if fmt == "json":
        out = {
            "run": asdict(tab.run),
            "flops": tab.flops,
            "reference_gpu_hours": tab.reference_hours,
            "tokens_note": note,
            "within_days": days,
            "gpus": [asdict(g) for g in tab.gpus],
            "places": _rows_out(tab),
            "notes": list(tab.notes),
        }
        return json.dumps(out, indent=2) + "\n"
    buf = io.StringIO()
    rows = _rows_out(tab)
    w = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["where"])
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()
