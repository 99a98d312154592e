"""The public API keeps its promise: within a major version, names and arguments only grow.

`public_api.json` is the committed snapshot of every public module's `__all__`: each name's
kind and, for a function or class, the names of its parameters. After adding a name or an
argument, rewrite it by running this file:
`python3 -m uv run python tests/rho_kernel/test_public_api_snapshot.py`. It refuses to record
a change that breaks plugins unless rho-kernel's major version changed. Every public class and
function has a docstring and is named in docs/plugins.md.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import compat_snapshot
import pytest
from public_modules import PUBLIC_MODULES
from pydantic import BaseModel

SNAPSHOT = Path(__file__).with_name("public_api.json")
DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def _parameters(value: Any) -> list[str] | None:
    if inspect.isclass(value) and issubclass(value, BaseModel):
        return list(value.model_fields)  # its signature depends on whether it is built yet
    try:
        return list(inspect.signature(value).parameters)
    except (TypeError, ValueError):  # a builtin or a type alias without a signature
        return None


def describe(value: Any) -> dict[str, Any]:
    """A public name as the snapshot records it: its kind, and its parameters if callable."""
    if inspect.isclass(value):
        return {"kind": "class", "parameters": _parameters(value)}
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return {"kind": "function", "parameters": _parameters(value)}
    return {"kind": "value"}


def surface() -> dict[str, dict[str, dict[str, Any]]]:
    """Every public module's names, described."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for name in sorted(PUBLIC_MODULES):
        module = importlib.import_module(name)
        found[name] = {export: describe(getattr(module, export)) for export in module.__all__}
    return found


def current() -> dict[str, Any]:
    """The snapshot as it would be written now."""
    return {"kernel_major": compat_snapshot.major(), "modules": surface()}


def breaking_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What in `new` breaks a plugin written against `old`: a module or name removed, a name
    that changed kind, a parameter removed or renamed."""
    problems: list[str] = []
    for module, names in old.items():
        if module not in new:
            problems.append(f"module {module} was removed")
            continue
        for name, before in names.items():
            after = new[module].get(name)
            if after is None:
                problems.append(f"{module}.{name} was removed")
            elif after["kind"] != before["kind"]:
                problems.append(f"{module}.{name} is now a {after['kind']}")
            else:
                for parameter in before.get("parameters") or ():
                    if parameter not in (after.get("parameters") or ()):
                        problems.append(f"{module}.{name} lost (or renamed) '{parameter}'")
    return problems


def load() -> dict[str, Any]:
    """The committed snapshot."""
    return compat_snapshot.load(SNAPSHOT)


def main() -> int:
    """Rewrite the snapshot; refuse a breaking change within the same major version."""
    return compat_snapshot.rewrite(SNAPSHOT, current(), "modules", breaking_changes, indent=1)


# ── the tests ───────────────────────────────────────────────────────────────


def test_nothing_public_is_removed_or_loses_an_argument_within_a_major_version() -> None:
    snapshot = load()
    if snapshot["kernel_major"] != current()["kernel_major"]:
        return  # a new major version may break plugins; the snapshot test asks to refresh it
    assert breaking_changes(snapshot["modules"], surface()) == []


def test_the_snapshot_records_every_public_name_and_argument() -> None:
    assert load() == current(), (
        "the public API changed: run `python3 -m uv run python "
        "tests/rho_kernel/test_public_api_snapshot.py` to record the new snapshot"
    )


def test_a_removed_name_or_a_renamed_argument_is_a_breaking_change() -> None:
    old = {"m": {"f": {"kind": "function", "parameters": ["a", "b"]}, "C": {"kind": "class"}}}
    new = {"m": {"f": {"kind": "function", "parameters": ["a", "c", "d"]}}, "n": {}}
    assert breaking_changes(old, new) == ["m.f lost (or renamed) 'b'", "m.C was removed"]
    assert breaking_changes(old, {}) == ["module m was removed"]
    grown = {"m": {**old["m"], "g": {"kind": "value"}}}
    assert breaking_changes(old, grown) == []


def _undocumented(value: Any, name: str) -> bool:
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return False  # constants and type aliases are described in the module and the docs
    doc = vars(value).get("__doc__") if inspect.isclass(value) else value.__doc__
    # A dataclass without a docstring gets its signature as one.
    return not doc or not doc.strip() or doc.startswith(f"{name}(")


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES))
def test_every_public_class_and_function_has_a_docstring(module: str) -> None:
    namespace = importlib.import_module(module)
    missing = [n for n in namespace.__all__ if _undocumented(getattr(namespace, n), n)]
    assert missing == []


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES - {"rho_kernel", "rho_kernel.hookspecs"}))
def test_every_name_of_a_public_submodule_is_named_in_the_plugin_guide(module: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`(\w+)", text))
    namespace = importlib.import_module(module)
    assert [name for name in namespace.__all__ if name not in named] == []


if __name__ == "__main__":
    sys.exit(main())
