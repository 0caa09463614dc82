"""What changed between two runs of a budget: ``tco compare OLD NEW``.

Reads two summary.json documents (or report folders holding one) and lists, like a cost diff in
code review: each option's totals (cash, NPV, p95 delay and wait) before and after; the
recommendation, and its own figures on each side whichever option it is;
every price whose value, source or date moved; every scenario input that changed. JSON for
tools, Markdown for people.
"""

from __future__ import annotations

from typing import Any

from tco.reports import compare_monthly
from tco.reports.formatting import md_cell, md_text, money
from tco.reports.summary_read import CompareError, basis, load

__all__ = ["CompareError", "compare", "load", "to_github", "to_html", "to_markdown"]


def _flat(x: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(x, dict):
        if not x and prefix:
            return {prefix: {}}  # an empty block written (candidates: {}) is a field given
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


def _inputs(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """The inputs that changed: of the fields either side's scenario gave (``written``; a
    summary from before 0.22.0 has none: every field), an option added or removed as one row
    (its kind), not each of its fields (0.21.0 listed 28 for --catalog's three candidates)."""
    fa, fb = _flat(old["input"]), _flat(new["input"])
    blocks: dict[str, tuple[Any, Any]] = {}
    if "written" in old and "written" in new:
        given = _flat(old["written"]) | _flat(new["written"])
        for g in [g for g, v in given.items() if v == {}]:  # a block given empty: its defaults
            was, now = (any(k.startswith(g + ".") for k in f) for f in (fa, fb))
            if was != now:
                blocks[g] = (
                    "given, its defaults" if was else None,
                    "given, its defaults" if now else None,
                )
        fa = {k: v for k, v in fa.items() if k in given}
        fb = {k: v for k, v in fb.items() if k in given}
    names = {o["name"]: o for o in old["input"].get("options", [])}
    later = {o["name"]: o for o in new["input"].get("options", [])}
    alone = {f"options[{n}]": (names.get(n), later.get(n)) for n in names.keys() ^ later.keys()}
    inside = tuple(p + "." for p in alone)  # an added option's fields: its one row says it
    rows = [
        {"path": k, "old": fa.get(k), "new": fb.get(k)}
        for k in sorted(fa.keys() | fb.keys())
        if fa.get(k) != fb.get(k) and not k.startswith(inside)
    ]
    rows += [{"path": g, "old": a, "new": b} for g, (a, b) in blocks.items()]
    for path, (before, after) in sorted(alone.items()):
        kinds = [None if o is None else f"{o['kind']} option" for o in (before, after)]
        rows.append({"path": path, "old": kinds[0], "new": kinds[1]})
    return sorted(rows, key=lambda r: r["path"])


def _change(old: float | None, new: float | None) -> dict[str, Any]:
    delta = None if old is None or new is None else new - old
    share = None if delta is None or not old else delta / old
    return {"old": old, "new": new, "delta": delta, "share": share}


def _pick(doc: dict[str, Any] | None, *keys: str) -> Any:
    for k in keys:
        doc = None if doc is None else doc.get(k)
    return doc


def _money(doc: dict[str, Any] | None, key: str, before_tax: bool) -> Any:
    """An option's total ``key`` (cash, npv_cash), before tax when ``before_tax`` (a run
    without a tax: section is before tax already)."""
    taxed = {"cash": "cash_before_tax", "npv_cash": "npv_before_tax"}[key]
    totals = _pick(doc, "totals_usd") or {}
    return totals.get(taxed, totals.get(key)) if before_tax else totals.get(key)


def _recommended(
    o_opts: dict[str, Any],
    n_opts: dict[str, Any],
    rec: tuple[str | None, str | None],
    before_tax: bool = False,
) -> dict[str, Any]:
    """The recommendation's own figures on each side, whichever option it is."""

    def of(opts: dict[str, Any], name: str | None, *keys: str) -> Any:
        return None if name is None else _pick(opts[name], *keys)

    def cash(opts: dict[str, Any], name: str | None, key: str) -> Any:
        return None if name is None else _money(opts[name], key, before_tax)

    return {
        "old": rec[0],
        "new": rec[1],
        "cash_usd": _change(cash(o_opts, rec[0], "cash"), cash(n_opts, rec[1], "cash")),
        "npv_usd": _change(cash(o_opts, rec[0], "npv_cash"), cash(n_opts, rec[1], "npv_cash")),
        **{
            measure: _change(of(o_opts, rec[0], *keys), of(n_opts, rec[1], *keys))
            for measure, keys in (
                ("p95_delay_h", ("delays_h", "p95_h")),
                ("p95_wait_h", ("waits_h", "p95_h")),
            )
        },
    }


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The differences between two summary documents, like for like: when one run decided on
    cash after tax and the other before, both are compared before tax (``basis``)."""
    o_opts = {o["name"]: o for o in old["options"]}
    n_opts = {o["name"]: o for o in new["options"]}
    on = basis(old, new)

    totals = []
    for name in [*o_opts, *(n for n in n_opts if n not in o_opts)]:
        a, b = o_opts.get(name), n_opts.get(name)
        totals.append(
            {
                "option": name,
                "cash_usd": _change(_money(a, "cash", bool(on)), _money(b, "cash", bool(on))),
                "npv_usd": _change(
                    _money(a, "npv_cash", bool(on)), _money(b, "npv_cash", bool(on))
                ),
                "p95_wait_h": _change(_pick(a, "waits_h", "p95_h"), _pick(b, "waits_h", "p95_h")),
                "p95_delay_h": _change(
                    _pick(a, "delays_h", "p95_h"), _pick(b, "delays_h", "p95_h")
                ),
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
    inputs = _inputs(old["scenario"], new["scenario"])
    rec = (old["recommendation"]["option"], new["recommendation"]["option"])
    return {
        "old": {"tco_version": old["tco_version"], "scenario": old["scenario"]["name"]},
        "new": {"tco_version": new["tco_version"], "scenario": new["scenario"]["name"]},
        "recommendation": {"old": rec[0], "new": rec[1], "changed": rec[0] != rec[1]},
        # The recommendation's own figures on each side, whichever option it is: what a budget
        # gate holds to (recommended.cash), where a switch to a dearer option is a change.
        "recommended": _recommended(o_opts, n_opts, rec, bool(on)),
        **({"basis": on} if on else {}),
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
        "# "
        + md_text(
            f"{o['scenario']} (tco {o['tco_version']}) -> {n['scenario']} (tco {n['tco_version']})"
        ),
        "",
        md_text(f"Recommended: {r['old']} -> {r['new']}")
        + (" (changed)" if r["changed"] else " (same)"),
        "",
        "| option | cash old | cash new | change | NPV change | p95 delay h (judged) old -> new |",
        "|---|---:|---:|---:|---:|---|",
    ]
    cash = _recommended_cash(diff)
    if cash is not None:
        lines[4:4] = [md_text(f"The recommendation's cash: {cash[0]} ({cash[1]})."), ""]
    for t in diff["totals"]:
        c, v, w = t["cash_usd"], t["npv_usd"], t.get("p95_delay_h", t["p95_wait_h"])
        # The same minus sign as the money beside it (formatting.money).
        share = "" if c["share"] is None else f" ({c['share']:+.1%})".replace("-", "\u2212")
        lines.append(
            f"| {md_cell(t['option'])} | {_usd(c['old'])} | {_usd(c['new'])}"
            f" | {_usd(c['delta'])}{share}"
            f" | {_usd(v['delta'])} | {_num(w['old'])} -> {_num(w['new'])} |"
        )
    lines += compare_monthly.markdown(diff)
    prices = [
        f"| {md_cell(p['option'])} | {md_cell(p['item'])} | {md_cell(_q(p['old']))}"
        f" | {md_cell(_q(p['new']))} |"
        for p in diff["prices"]
    ]
    inputs = [
        f"| {md_cell(p['path'])} | {md_cell(str(p['old']))} | {md_cell(str(p['new']))} |"
        for p in diff["inputs"]
    ]
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


def _recommended_cash(diff: dict[str, Any]) -> tuple[str, str] | None:
    """The recommendation's cash, old -> new (whichever option it is on each side), and its
    change (with its share), or None where a side recommends nothing."""
    c = diff["recommended"]["cash_usd"]
    if c["delta"] is None:
        return None
    share = "" if c["share"] is None else f", {c['share']:+.1%}"
    on = f"; {diff['basis']}" if diff.get("basis") else ""
    return f"{_usd(c['old'])} -> {_usd(c['new'])}", f"{_usd(c['delta'])}{share}{on}"


def to_github(diff: dict[str, Any], failed: list[str] | None = None) -> str:
    """A pull-request comment: the recommendation and its cash in one sentence, the thresholds
    that failed, the options whose totals moved, and the prices and inputs folded away
    (GitHub renders ``<details>``)."""
    o, n, r = diff["old"], diff["new"], diff["recommendation"]
    head = f"### tco: {md_text(n['scenario'])}, recommended {md_text(str(r['new']))}"
    head += f" (was {md_text(str(r['old']))})" if r["changed"] else " (unchanged)"
    lines = [head, ""]
    cash = _recommended_cash(diff)
    if cash is not None:
        versions = f"tco {o['tco_version']} -> {n['tco_version']}"
        lines += [f"Cash over the horizon: {cash[0]} ({cash[1]}; {versions}).", ""]
    if failed:
        lines += ["**Failed:** " + md_text("; ".join(failed)), ""]
    moved = [t for t in diff["totals"] if t["cash_usd"]["delta"] != 0]
    if moved:
        lines += ["| option | cash old | cash new | change |", "|---|---:|---:|---:|"]
        for t in moved:
            c = t["cash_usd"]
            share = "" if c["share"] is None else f" ({c['share']:+.1%})"
            lines.append(
                f"| {md_cell(t['option'])} | {_usd(c['old'])} | {_usd(c['new'])}"
                f" | {_usd(c['delta'])}{share} |"
            )
    else:
        lines.append("No option's cash moved.")
    rest = to_markdown(diff).split("\n## ", 1)
    if len(rest) == 2:
        lines += [
            "",
            f"<details><summary>{'Months, p' if 'monthly' in diff else 'P'}rices"
            f" ({len(diff['prices'])}) and inputs ({len(diff['inputs'])}) that changed</summary>",
            "",
            "## " + rest[1].rstrip("\n"),
            "",
            "</details>",
        ]
    return "\n".join(lines) + "\n"


def to_html(diff: dict[str, Any]) -> str:
    """The comparison as a page built like the report (its template and styles): the
    recommendation in a sentence, then the totals, prices and inputs that changed."""
    import pandas as pd

    from tco.reports.document import Section, Table, render_page

    o, n, r = diff["old"], diff["new"], diff["recommendation"]
    head = f"Recommended: {r['new']}" + (f" (was {r['old']})." if r["changed"] else " (unchanged).")
    cash = _recommended_cash(diff)
    if cash is not None:
        head += f" Its cash: {cash[0]} ({cash[1]})."
    totals = pd.DataFrame(
        {
            "option": [t["option"] for t in diff["totals"]],
            "cash old (USD)": [_usd(t["cash_usd"]["old"]) for t in diff["totals"]],
            "cash new (USD)": [_usd(t["cash_usd"]["new"]) for t in diff["totals"]],
            "change (USD)": [_usd(t["cash_usd"]["delta"]) for t in diff["totals"]],
            "p95 delay h (the level judges it), old -> new": [
                f"{_num(t['p95_delay_h']['old'])} -> {_num(t['p95_delay_h']['new'])}"
                for t in diff["totals"]
            ],
        }
    )
    prices = pd.DataFrame(
        [(p["option"], p["item"], _q(p["old"]), _q(p["new"])) for p in diff["prices"]],
        columns=["option", "item", "old", "new"],
    )
    inputs = pd.DataFrame(
        [(p["path"], str(p["old"]), str(p["new"])) for p in diff["inputs"]],
        columns=["path", "old", "new"],
    )
    months = compare_monthly.frame(diff)
    parts = [
        Section(
            "answer",
            "The answer",
            headline=head,
            tables=[Table("Totals over the horizon", totals, cards=True)]
            + ([] if months is None else [Table(compare_monthly.title(diff["monthly"]), months)]),
        ),
        Section(
            "prices",
            f"Prices that changed ({len(prices)})",
            tables=[Table("", prices, prose=("item", "old", "new"))] if len(prices) else [],
        ),
        Section(
            "inputs",
            f"Inputs that changed ({len(inputs)})",
            tables=[Table("", inputs, prose=("old", "new"))] if len(inputs) else [],
        ),
    ]
    return render_page(
        f"{o['scenario']} (tco {o['tco_version']}) -> {n['scenario']} (tco {n['tco_version']})",
        "tco compare",
        "",
        parts,
        {},
    )
