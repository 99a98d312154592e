"""The hook surface is documented: every hookspec has a contract and a row in docs/plugins.md."""

from __future__ import annotations

import inspect
from pathlib import Path

from rho_kernel import hookspecs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def _hook_names() -> list[str]:
    return [
        name
        for name, _ in inspect.getmembers(hookspecs, inspect.isfunction)
        if name.startswith("rho_")
    ]


def test_every_hook_has_a_docstring_contract() -> None:
    for name in _hook_names():
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        assert "Added in" in doc or "added in" in doc, f"{name} lacks its version note"
        assert len(doc) > 60, f"{name} has no real contract"


def test_every_hook_is_documented_for_plugin_authors() -> None:
    text = DOCS.read_text()
    missing = [name for name in _hook_names() if f"`{name}(" not in text]
    assert not missing, f"hooks missing from docs/plugins.md: {missing}"
    assert len(_hook_names()) >= 12
