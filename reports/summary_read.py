"""Reading a summary.json for ``tco compare``: the file or a report folder holding one, checked
to be a summary of the version this tco reads, with every field compare uses of the right type;
a malformed one is named by file and field (``CompareError``, one line)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tco.simulator.core.input_files import InputFileError, read_input

SUMMARY = "summary.json"


class CompareError(ValueError):
    """A file that is not a tco summary (the message names it and says what is expected)."""


SCHEMA = "tco-summary/1"  # the summary version this tco reads
_NUMBER = (int, float)
# What compare reads of a summary, and its type (None in a number's place: not computed).
_TOP: dict[str, Any] = {"tco_version": str, "scenario": dict, "options": list}
_OPTION: dict[str, Any] = {"name": str, "totals_usd": dict, "waits_h": dict, "prices": list}
_PRICE: dict[str, Any] = {"item": str, "source": str, "as_of": str}


def load(path: str | Path) -> dict[str, Any]:
    """A summary.json document, from the file or a report folder holding one; checked to be a
    summary of the version this tco reads, with every field compare uses of the right type."""
    p = Path(path)
    if p.is_dir():
        p = p / SUMMARY
    try:
        text = read_input(p, "a summary.json or a report folder").decode("utf-8")
        doc = json.loads(text)
    except InputFileError as exc:
        raise CompareError(str(exc)) from None
    except UnicodeDecodeError:
        raise CompareError(f"{p}: not UTF-8 text; give a summary.json") from None
    except json.JSONDecodeError as exc:
        raise CompareError(f"{p}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise CompareError(f"{p}: nested too deeply to be a tco summary.json") from None
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith("tco-summary/"):
        raise CompareError(f"{p}: not a tco summary.json (no 'schema': 'tco-summary/...')")
    if doc["schema"] != SCHEMA:
        raise CompareError(
            f"{p}: schema: {doc['schema']!r} is another version of the summary; this tco reads"
            f" {SCHEMA!r} (run both with the same tco, or compare with the tco that wrote it)"
        )
    _check_shape(doc, p)
    return doc


def _kind(x: Any) -> str:
    return "null" if x is None else type(x).__name__


def _expect(doc: dict[str, Any], spec: dict[str, Any], p: Path, where: str) -> None:
    for key, typ in spec.items():
        v = doc.get(key)
        if not isinstance(v, typ) or isinstance(v, bool):
            raise CompareError(
                f"{p}: {where}{key}: expected {typ.__name__}, found {_kind(v)};"
                " not a summary.json this tco wrote"
            )


# No tco run writes a figure near these (a trillion dollars, a century of hours): one beyond
# them, NaN or infinite is a file edited or corrupted, not a result to print a percentage of.
_LARGEST = {"usd": 1e12, "h": 1e6}


def check_number(x: Any, p: Path, where: str, unit: str, required: bool = False) -> None:
    """A figure of a summary at ``where``: a finite number within what a run writes (None
    allowed, for a figure not computed, unless ``required``); else a one-line CompareError."""
    if x is None and required:
        raise CompareError(f"{p}: {where}: expected a number, found null")
    if x is not None and (not isinstance(x, _NUMBER) or isinstance(x, bool)):
        raise CompareError(f"{p}: {where}: expected a number, found {_kind(x)}")
    if x is not None and not (math.isfinite(x) and abs(x) <= _LARGEST[unit]):
        raise CompareError(
            f"{p}: {where}: {x!r} is not a figure a tco run writes (a finite number within"
            f" ±{_LARGEST[unit]:g} {unit})"
        )


def _check_shape(doc: dict[str, Any], p: Path) -> None:
    """The fields compare reads, with their types: a malformed summary is named by field."""
    _expect(doc, _TOP, p, "")
    _expect(doc["scenario"], {"name": str, "input": dict}, p, "scenario.")
    rec = doc.get("recommendation")
    if not isinstance(rec, dict) or not isinstance(rec.get("option"), str | None):
        raise CompareError(f"{p}: recommendation: expected an object with 'option'")
    names: set[str] = set()
    for i, o in enumerate(doc["options"]):
        at = f"options[{i}]."
        if not isinstance(o, dict):
            raise CompareError(f"{p}: options[{i}]: expected an object, found {_kind(o)}")
        _expect(o, _OPTION, p, at)
        if o["name"] in names:
            raise CompareError(f"{p}: {at}name: {o['name']!r} appears twice")
        names.add(o["name"])
        for key in ("cash", "npv_cash"):
            check_number(o["totals_usd"].get(key), p, f"{at}totals_usd.{key}", "usd")
        check_number(o["waits_h"].get("p95_h"), p, f"{at}waits_h.p95_h", "h")
        delays = o.get("delays_h")
        if delays is not None and not isinstance(delays, dict):
            raise CompareError(f"{p}: {at}delays_h: expected an object, found {_kind(delays)}")
        check_number((delays or {}).get("p95_h"), p, f"{at}delays_h.p95_h", "h")
        for j, q in enumerate(o["prices"]):
            if not isinstance(q, dict):
                raise CompareError(f"{p}: {at}prices[{j}]: expected an object, found {_kind(q)}")
            _expect(q, _PRICE, p, f"{at}prices[{j}].")
            if "value" not in q:
                raise CompareError(f"{p}: {at}prices[{j}].value: missing")
    if rec["option"] is not None and rec["option"] not in names:
        raise CompareError(
            f"{p}: recommendation.option: {rec['option']!r} is none of the options"
            f" ({', '.join(sorted(names))}); not a summary.json this tco wrote"
        )


def decided_after_tax(doc: dict[str, Any]) -> bool:
    """Whether a run's cash is after tax (its scenario's ``tax: decide_on: after_tax``)."""
    tax = ((doc.get("scenario") or {}).get("input") or {}).get("tax") or {}
    return isinstance(tax, dict) and tax.get("decide_on") == "after_tax"


def basis(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Which cash two runs are compared on: as each decided ('') when both decided on the same
    side of tax, else before tax on both, like for like (the words say why)."""
    if decided_after_tax(old) == decided_after_tax(new):
        return ""
    return "before tax: one run decided on cash after tax, the other before"
