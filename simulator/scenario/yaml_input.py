"""YAML text to Python data: safe loading, duplicate keys refused, errors as one line."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tco.simulator.core.errors import ScenarioError


class _UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader that rejects duplicate keys instead of silently keeping the last one."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node)
        if key in out:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (line {mark.line + 1})", mark
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# Dates stay text ("2025-03-17"): the scenario validates them by pattern, and a date that YAML
# turned into an object would be reported as a wrong type.
_UniqueKeyLoader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda loader, node: loader.construct_scalar(node),  # type: ignore[arg-type]
)

# YAML 1.2 floats: PyYAML (YAML 1.1) reads 1e6 and 2.5E-3 without a dot as text; a scenario means
# a number, and validation is strict about types.
_UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def parse_yaml(text: str, file: str) -> Any:
    """YAML text -> Python data, with syntax errors as one-line ScenarioErrors."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except RecursionError:
        raise ScenarioError(file, "", "the YAML is nested too deeply to be a scenario") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "?"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(file, where, f"YAML syntax error: {problem}") from None
