"""What the ``tco`` commands share: the one-line error for bad input, the price-book options,
warnings, the console and the progress spinner. Imports nothing heavy (start-up stays fast)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tco.pricing.records import MODES

if TYPE_CHECKING:
    from rich.console import Console

    from tco.pricing.book import PriceBook

EXIT_BAD_INPUT = 2
# Line breaks and other control characters in a message (a name or a path that holds one) are
# shown escaped, so that an error is always one line.
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)} | {
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
}


def one_line(text: str) -> str:
    """``text`` with its control characters escaped (``\\n`` for a line break)."""
    return text.translate(_CONTROL)


class BadInput(click.ClickException):
    """A user-fixable problem: one line, exit code 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: object = None) -> None:
        click.echo(f"tco: error: {one_line(self.message)}", err=True)


# A Dask scheduler's address: [protocol://]host:port (distributed's own forms); anything else
# ended in a ValueError traceback from distributed.
_ADDRESS = re.compile(r"(?:(?:tcp|tls|ucx|ws|wss)://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):\d{1,5}")


def check_engine(engine: str, scheduler: str | None) -> None:
    """``--engine`` and ``--scheduler`` together, or BadInput saying what would do."""
    if scheduler is None:
        return
    if engine != "dask":
        raise BadInput("--scheduler is the address of a Dask scheduler: add --engine dask")
    if not _ADDRESS.fullmatch(scheduler.strip()):
        raise BadInput(
            f"--scheduler {scheduler!r}: give a Dask scheduler's address, host:port or"
            " tcp://host:port (e.g. tcp://10.0.0.5:8786)"
        )


def warn(book: PriceBook) -> None:
    """The price book's warnings, one line each on stderr."""
    for w in book.warnings:
        click.echo(f"tco: warning: {one_line(w)}", err=True)


@contextlib.contextmanager
def price_book(mode: str, offline: bool) -> Iterator[PriceBook]:
    """The price book the options ask for; ``offline`` serves AWS calls from moto + replay."""
    from tco.pricing.book import PriceBook

    if offline:
        if mode not in ("auto", "live"):
            raise BadInput(
                f"--offline runs the live code path offline; it cannot be combined "
                f"with --prices {mode}"
            )
        from tco.pricing.offline import offline_session

        with offline_session() as session:
            yield PriceBook("live", session=session, offline=True)
        return
    yield PriceBook(mode)  # type: ignore[arg-type]


PRICES_OPTION = click.option(
    "--prices",
    "prices",
    type=click.Choice(MODES),
    default="auto",
    show_default=True,
    help="Where prices come from: live AWS if credentials are present (auto), always live, the "
    "cache of earlier live answers, or the bundled snapshot.",
)
TABLE_FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="A table, or JSON or CSV with every field.",
)
OFFLINE_OPTION = click.option(
    "--offline",
    is_flag=True,
    help="Run the live AWS code path with no network: EC2 from moto, prices replayed from the "
    "bundled snapshot.",
)


@contextlib.contextmanager
def progress(quiet: bool) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr naming the option being simulated; silent off a terminal or quiet."""
    from rich.console import Console

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield lambda _name: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)
        yield lambda what: bar.update(task, description=what)


def console() -> Console:
    """A console for tables: the terminal's width; into a pipe or file, $COLUMNS, else 100."""
    from tco.reports.terminal import terminal_console

    return terminal_console()


_Command = TypeVar("_Command", bound=Callable[..., Any])


def options(group: list[Callable[[Any], Any]]) -> Callable[[_Command], _Command]:
    """Several click options as one decorator (a group of them named once), so a command reads
    as what it does."""

    def apply(f: _Command) -> _Command:
        for option in reversed(group):
            f = option(f)
        return f

    return apply
