"""Context files: scanning through the sandbox, the size cap, trust, notes once per file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_kernel.context_files import (
    MAX_CONTEXT_FILE_BYTES,
    ContextFile,
    context_block,
    plain_name,
    scan_context_files,
    trusted_context_files,
)
from rho_kernel.security import SandboxRoot, TrustStore


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("AGENTS.md", "AGENTS.md"),
        ("./.rho//prompt.md", ".rho/prompt.md"),
        ("/etc/passwd", None),
        ("../x.md", None),
        ("a/../../x.md", None),
        ("a\\b.md", None),
        ("", None),
        (".", None),
    ],
)
def test_only_plain_relative_names_are_scanned(raw: str, expected: str | None) -> None:
    assert plain_name(raw) == expected


def test_scan_keeps_order_skips_missing_and_reports_the_rest(tmp_path: Path) -> None:
    (tmp_path / "B.md").write_text("b")
    (tmp_path / "A.md").write_text("a")
    (tmp_path / "big.md").write_bytes(b"x" * (MAX_CONTEXT_FILE_BYTES + 1))
    (tmp_path / "dir.md").mkdir()
    os.mkfifo(tmp_path / "fifo.md")
    notes: list[str] = []
    names = ["B.md", "missing.md", "A.md", "./B.md", "big.md", "dir.md", "fifo.md", "/abs"]
    found = scan_context_files(SandboxRoot(tmp_path), names, warn=notes.append)
    assert [f.name for f in found] == ["B.md", "A.md"]
    assert len(notes) == 4
    assert "big.md left out: larger than" in notes[0]
    assert notes[1].startswith("context file dir.md left out")
    assert notes[2].startswith("context file fifo.md left out")
    assert "'/abs' is not a path relative" in notes[3]


def test_only_trusted_unchanged_files_load_and_each_other_is_noted_once(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "AGENTS.md").write_text("trusted")
    (root / "CLAUDE.md").write_text("new")
    store = TrustStore(tmp_path / "store.toml")
    store.trust(root, "AGENTS.md", b"trusted")
    notes: list[str] = []
    noted: set[tuple[str, str]] = set()
    sandbox = SandboxRoot(root)
    for _ in range(2):
        loaded = trusted_context_files(
            sandbox, ["AGENTS.md", "CLAUDE.md"], store, noted=noted, warn=notes.append
        )
        assert [f.name for f in loaded] == ["AGENTS.md"]
    assert len(notes) == 1 and "CLAUDE.md: context file left out" in notes[0]
    assert "it is not trusted" in notes[0]
    (root / "AGENTS.md").write_text("edited")
    assert trusted_context_files(sandbox, ["AGENTS.md"], store, warn=notes.append) == []
    assert "it changed since it was trusted" in notes[-1]


def test_a_block_is_the_trimmed_text_between_dashed_lines() -> None:
    block = context_block(ContextFile("AGENTS.md", b"\n  hello\n\n"))
    assert block == "--- AGENTS.md ---\nhello\n---"
