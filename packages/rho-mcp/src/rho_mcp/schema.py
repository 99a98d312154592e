"""Checking a server's input schema before a model sees it.

A server's schema goes to the model provider with every request, next to every other tool:
one the provider cannot take would fail every request, so a tool whose schema is not a
plain, bounded JSON Schema object is left out (and reported), never the server.
"""

from __future__ import annotations

import json
from typing import Any

#: The largest schema taken, as JSON.
MAX_SCHEMA_BYTES = 64 * 1024
#: The deepest nesting taken.
MAX_DEPTH = 32
#: The most `$ref`s taken.
MAX_REFERENCES = 1000


def schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be a tool's parameters, or None when it can."""
    if not isinstance(schema, dict):
        return f"its input schema is a {type(schema).__name__}, not an object schema"
    if schema.get("type", "object") != "object":
        return f"its input schema's root is of type {schema.get('type')!r}, not 'object'"
    try:
        size = len(json.dumps(schema, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        return f"its input schema is not JSON ({exc})"
    if size > MAX_SCHEMA_BYTES:
        return f"its input schema is {size} bytes (at most {MAX_SCHEMA_BYTES})"
    if _depth(schema) > MAX_DEPTH:
        return f"its input schema nests deeper than {MAX_DEPTH} levels"
    return _reference_problem(schema)


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _references(value: Any) -> list[str]:
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.append(ref)
            elif "$ref" in item:
                found.append(repr(ref))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _resolve(schema: dict[str, Any], ref: str) -> Any:
    """The value `ref` (a `#/…` pointer) points at in `schema`; KeyError when none."""
    node: Any = schema
    for raw in ref[2:].split("/") if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node


def _reference_problem(schema: dict[str, Any]) -> str | None:
    """A `$ref` that leaves the schema, points nowhere, or only at references in a loop.

    Each pointer is followed once, whatever the number of references to it: a chain of
    references costs its length, not its length for each of them."""
    references = _references(schema)
    if len(references) > MAX_REFERENCES:
        return f"its input schema has {len(references)} $refs (at most {MAX_REFERENCES})"
    verdicts: dict[str, str | None] = {}
    for ref in references:
        problem = _chain_problem(schema, ref, verdicts)
        if problem is not None:
            return problem
    return None


def _chain_problem(schema: dict[str, Any], ref: str, verdicts: dict[str, str | None]) -> str | None:
    """What is wrong with the chain of references starting at `ref` (None: it ends in a
    schema of its own); every pointer on it gets the verdict in `verdicts`."""
    chain: list[str] = []
    current = ref
    while True:
        if current in verdicts:
            verdict = verdicts[current]
            break
        if not (current == "#" or current.startswith("#/")):
            verdict = f"its input schema refers outside itself ($ref {current[:80]})"
            break
        if current in chain:
            verdict = f"its input schema's $ref {current[:80]} refers to itself in a loop"
            break
        chain.append(current)
        try:
            target = _resolve(schema, current)
        except KeyError:
            verdict = f"its input schema refers to nothing at $ref {current[:80]}"
            break
        following = target.get("$ref") if isinstance(target, dict) else None
        if not isinstance(following, str) or len(target) > 1:
            verdict = None  # a schema of its own: recursion through it is fine
            break
        current = following
    for pointer in chain:
        verdicts[pointer] = verdict
    return verdict


__all__ = ["MAX_DEPTH", "MAX_REFERENCES", "MAX_SCHEMA_BYTES", "schema_problem"]
