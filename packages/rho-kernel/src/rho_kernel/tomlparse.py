"""Parsing TOML that a repository or another program may have written: never a crash.

`tomllib` parses nested arrays and inline tables recursively, so `a = [[[…]]]` three thousand
deep ends in a `RecursionError`; a little less deep parses, and then trips whatever walks the
result recursively (merging, validation). `parse_toml` turns both into a `TomlError` saying
what is wrong, and refuses anything nested deeper than `MAX_TOML_DEPTH`, far beyond any real
configuration.
"""

from __future__ import annotations

import tomllib
from typing import Any

#: The deepest nesting of tables and arrays accepted (real configs stay below ten).
MAX_TOML_DEPTH = 64


class TomlError(ValueError):
    """The text is not TOML rho accepts; the message says why (no file name in it)."""


def parse_toml(text: str) -> dict[str, Any]:
    """The table `text` holds. Raises `TomlError` for invalid TOML or absurd nesting."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(f"invalid TOML: {exc}") from None
    except RecursionError:
        raise TomlError(_too_deep()) from None
    if nesting_depth(table) > MAX_TOML_DEPTH:
        raise TomlError(_too_deep())
    return table


def nesting_depth(value: Any) -> int:
    """How deeply tables and arrays nest in `value` (0 for a scalar), without recursion."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if depth > MAX_TOML_DEPTH:
            return depth
        pending.extend((child, depth) for child in children)
    return deepest


def _too_deep() -> str:
    return f"invalid TOML: tables or arrays nested more than {MAX_TOML_DEPTH} levels deep"


__all__ = ["MAX_TOML_DEPTH", "TomlError", "nesting_depth", "parse_toml"]
