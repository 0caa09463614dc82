"""What changed between two runs of a budget: ``tco compare OLD NEW``.

Reads two summary.json documents (or report folders holding one) and lists, like a cost diff in
code review: each option's totals (cash, NPV, p95 wait) before and after; the recommendation;
every price whose value, source or date moved; every scenario input that changed. JSON for
tools, Markdown for people.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tco.reports.formatting import money

SUMMARY = "summary.json"


class CompareError(ValueError):
    """A file that is not a tco summary (the message names it and says what is expected)."""


def load(path: str | Path) -> dict[str, Any]:
    """A summary.json document, from the file or a report folder holding one."""
    p = Path(path)
    if p.is_dir():
        p = p / SUMMARY
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{p}: no such file; give a summary.json or a report folder") from None
    except json.JSONDecodeError as exc:
        raise CompareError(f"{p}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith("tco-summary/"):
        raise CompareError(f"{p}: not a tco summary.json (no 'schema': 'tco-summary/...')")
    return doc


def _flat(x: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(x, dict):
        out: dict[str, Any] = {}
        for k, v in x.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(x, list) and any(isinstance(v, dict) for v in x):
        out = {}
        for i, v in enumerate(x):
            key = v.get("name", i) if isinstance(v, dict) else i
            out.update(_flat(v, f"{prefix}[{key}]"))
        return out
    return {prefix: x}


def _change(old: float | None, new: float | None) -> dict[str, Any]:
    delta = None if old is None or new is None else new - old
    share = None if delta is None or not old else delta / old
    return {"old": old, "new": new, "delta": delta, "share": share}


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The differences between two summary documents."""
    o_opts = {o["name"]: o for o in old["options"]}
    n_opts = {o["name"]: o for o in new["options"]}

    def pick(doc: dict[str, Any] | None, *keys: str) -> Any:
        for k in keys:
            doc = None if doc is None else doc[k]
        return doc

    totals = []
    for name in [*o_opts, *(n for n in n_opts if n not in o_opts)]:
        a, b = o_opts.get(name), n_opts.get(name)
        totals.append(
            {
                "option": name,
                "cash_usd": _change(pick(a, "totals_usd", "cash"), pick(b, "totals_usd", "cash")),
                "npv_usd": _change(
                    pick(a, "totals_usd", "npv_cash"), pick(b, "totals_usd", "npv_cash")
                ),
                "p95_wait_h": _change(pick(a, "waits_h", "p95_h"), pick(b, "waits_h", "p95_h")),
            }
        )
    prices = []
    for name in [n for n in o_opts if n in n_opts]:
        qa = {q["item"]: q for q in o_opts[name]["prices"]}
        qb = {q["item"]: q for q in n_opts[name]["prices"]}
        for item in sorted(qa.keys() | qb.keys()):
            qo, qn = qa.get(item), qb.get(item)
            keys = ("value", "source", "as_of")
            if qo is None or qn is None or any(qo[k] != qn[k] for k in keys):
                prices.append(
                    {
                        "option": name,
                        "item": item,
                        "old": qo and {k: qo[k] for k in keys},
                        "new": qn and {k: qn[k] for k in keys},
                    }
                )
    fa, fb = _flat(old["scenario"]["input"]), _flat(new["scenario"]["input"])
    inputs = [
        {"path": k, "old": fa.get(k), "new": fb.get(k)}
        for k in sorted(fa.keys() | fb.keys())
        if fa.get(k) != fb.get(k)
    ]
    rec = (old["recommendation"]["option"], new["recommendation"]["option"])
    return {
        "old": {"tco_version": old["tco_version"], "scenario": old["scenario"]["name"]},
        "new": {"tco_version": new["tco_version"], "scenario": new["scenario"]["name"]},
        "recommendation": {"old": rec[0], "new": rec[1], "changed": rec[0] != rec[1]},
        "totals": totals,
        "prices": prices,
        "inputs": inputs,
    }


def _usd(x: float | None) -> str:
    return "-" if x is None else money(x)


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:,.1f}"


def to_markdown(diff: dict[str, Any]) -> str:
    """The differences as Markdown tables."""
    o, n, r = diff["old"], diff["new"], diff["recommendation"]
    lines = [
        f"# {o['scenario']} (tco {o['tco_version']}) -> {n['scenario']} (tco {n['tco_version']})",
        "",
        f"Recommended: {r['old']} -> {r['new']}" + (" (changed)" if r["changed"] else " (same)"),
        "",
        "| option | cash old | cash new | change | NPV change | p95 wait h old -> new |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for t in diff["totals"]:
        c, v, w = t["cash_usd"], t["npv_usd"], t["p95_wait_h"]
        # The same minus sign as the money beside it (formatting.money).
        share = "" if c["share"] is None else f" ({c['share']:+.1%})".replace("-", "\u2212")
        lines.append(
            f"| {t['option']} | {_usd(c['old'])} | {_usd(c['new'])} | {_usd(c['delta'])}{share}"
            f" | {_usd(v['delta'])} | {_num(w['old'])} -> {_num(w['new'])} |"
        )
    prices = [
        f"| {p['option']} | {p['item']} | {_q(p['old'])} | {_q(p['new'])} |" for p in diff["prices"]
    ]
    inputs = [f"| {p['path']} | {p['old']} | {p['new']} |" for p in diff["inputs"]]
    for title, head, rows in (
        ("Prices", "| option | item | old | new |", prices),
        ("Inputs", "| path | old | new |", inputs),
    ):
        lines += ["", f"## {title} that changed ({len(rows)})", ""]
        if rows:
            lines += [head, "|" + "---|" * (head.count("|") - 1), *rows]
    return "\n".join(lines) + "\n"


def _q(q: dict[str, Any] | None) -> str:
    return "-" if q is None else f"{q['value']} ({q['source']}, {q['as_of']})"
