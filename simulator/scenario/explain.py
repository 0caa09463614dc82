"""Pydantic's validation errors in the user's words: the field path as written in the YAML file,
what is wrong, and (for an unknown key) the valid keys and the closest match."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from tco.pricing.errors import closest
from tco.simulator.core.fields import OptionModel
from tco.simulator.kinds import registry


def _union_tag(part: int | str) -> bool:
    """pydantic names the branch of a union in an error's location ('constrained-int',
    'GpuChoice', 'function-after[...]'); scenario keys are lower-case words."""
    return isinstance(part, str) and not re.fullmatch(r"[a-z_][a-z0-9_]*", part)


def path(loc: tuple[int | str, ...], last_is_users_key: bool = False) -> str:
    """('options', 0, 'server') -> 'options[0].server', union branch tags left out (but an
    unknown key the user wrote, which may look like one)."""
    out = ""
    for i, part in enumerate(loc):
        users = last_is_users_key and i == len(loc) - 1
        if isinstance(part, int):
            out += f"[{part}]"
        elif users or not _union_tag(part):
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def wrong_branch(err: dict[str, Any]) -> bool:
    """An error of a union branch the input was not written for: a mapping or list checked as
    a number or text (another branch's error says what is wrong inside it). A mapping's own
    missing key or failed check, in the branch written for it, is not one."""
    return (
        any(_union_tag(p) for p in err["loc"])
        and isinstance(err.get("input"), dict | list)
        and err["type"] not in ("missing", "value_error")
    )


def _inner_model(annotation: Any) -> Any:
    """The BaseModel inside list[X] / X | None / Annotated[...] annotations, if any."""
    stack = [annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and issubclass(a, BaseModel):
            return a
        stack.extend(getattr(a, "__args__", ()))
        origin = getattr(a, "__origin__", None)
        if origin is not None and origin is not list:
            stack.extend(getattr(origin, "__args__", ()))
    return None


def _option_model(node: Any) -> Any:
    """The registered model of an option mapping (by its ``kind``), if the kind is known."""
    kind = node.get("kind") if isinstance(node, dict) else None
    return registry.get(kind).model if kind in registry.names() else None


def fields_at(root: type[BaseModel], loc: tuple[int | str, ...], data: Any) -> list[str]:
    """Valid keys of the mapping at ``loc`` (used to suggest a fix for an unknown key)."""
    model: Any = root
    node = data
    for part in loc:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and part < len(node) else None
            if model is OptionModel:
                model = _option_model(node)
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        field = model.model_fields.get(str(part))
        node = node.get(part) if isinstance(node, dict) else None
        if field is None:
            return list(model.model_fields)
        model = _inner_model(field.annotation)
        if model is OptionModel and isinstance(node, dict):
            model = _option_model(node)
    if isinstance(model, type) and issubclass(model, BaseModel) and model is not OptionModel:
        return list(model.model_fields)
    return []


def unknown_kind(item: Any) -> str:
    """The message for an option whose ``kind`` is missing or not registered."""
    kinds = registry.names()
    tag = item.get("kind") if isinstance(item, dict) else None
    if tag is None:
        return f"missing kind; valid: {', '.join(kinds)}"
    return f"unknown option kind {tag!r}{closest(str(tag), kinds)}; valid: {', '.join(kinds)}"


def explain(root: type[BaseModel], err: dict[str, Any], data: Any) -> tuple[str, str]:
    """(field path, message) of one pydantic error."""
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        valid = fields_at(root, (*loc[:-1], "__nope__"), data) or fields_at(root, loc[:-1], data)
        valid = [v for v in valid if v != "kind"] if valid else valid
        return path(loc, last_is_users_key=True), (
            f"unknown key {key!r}{closest(key, valid)}; valid keys: {', '.join(valid)}"
        )
    if kind == "unknown_kind":
        return path(loc) + ".kind", str(err["msg"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    if kind == "missing":
        msg = "required field is missing"
    elif "input" in err and kind not in ("model_type",):
        shown = repr(err["input"])
        if len(shown) < 60:
            msg += f" (got {shown})"
    return path(loc), msg
