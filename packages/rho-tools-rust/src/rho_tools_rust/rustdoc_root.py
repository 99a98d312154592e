"""Finding the local Rust documentation (`rustup doc --path`), once per process.

Nothing here runs at import: the first lookup asks rustup, and the answer (with the index
built from it) is kept for the rest of the process. A failed search is not kept, so docs
installed later are found by the next lookup.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rho_tools_rust.rustdoc_index import DocIndex, build_index
from rho_tools_rust.rustup import run_rustup

NOT_INSTALLED = (
    "rustdoc_lookup: the local Rust documentation is not installed (rustup component add rust-docs)"
)
NO_RUST = "rustdoc_lookup: Rust is not installed: install Rust with rustup, https://rustup.rs"


class DocsUnavailable(Exception):
    """The local documentation cannot be found; the message says what to install."""


@dataclass(frozen=True)
class Docs:
    """The documentation folder (`.../share/doc/rust/html`) and its item index."""

    root: Path
    index: DocIndex


_cache: dict[tuple[str, str], Docs] = {}


def _is_docs_root(folder: Path) -> bool:
    return (folder / "std" / "index.html").is_file() and (folder / "std" / "all.html").is_file()


def rustup_home() -> Path:
    """`RUSTUP_HOME`, or `~/.rustup` when it is not set."""
    configured = os.environ.get("RUSTUP_HOME")
    return Path(configured) if configured else Path.home() / ".rustup"


def toolchain_docs() -> list[Path]:
    """Documentation folders of the installed toolchains, stable ones first."""
    try:
        toolchains = sorted(
            (rustup_home() / "toolchains").iterdir(),
            key=lambda path: (not path.name.startswith("stable"), path.name),
        )
    except OSError:
        return []
    folders = [toolchain / "share" / "doc" / "rust" / "html" for toolchain in toolchains]
    return [folder for folder in folders if _is_docs_root(folder)]


async def rustup_doc_path(env: Mapping[str, str]) -> Path | None:
    """The folder `rustup doc --path` names for the user's toolchain (asked outside the
    project, see `rho_tools_rust.rustup`); None when rustup fails or says nothing."""
    answer = await run_rustup(env, "doc", "--path")
    lines = answer.strip().splitlines() if answer else []
    return Path(lines[-1].strip()).parent if lines else None


async def find_docs_root(env: Mapping[str, str]) -> Path:
    """The local documentation folder, from rustup or else the toolchains folder.

    Raises `DocsUnavailable` saying what to install when there is none.
    """
    named = await rustup_doc_path(env)
    if named is not None and _is_docs_root(named):
        return named
    found = toolchain_docs()
    if found:
        return found[0]
    if shutil.which("rustup") is None and shutil.which("cargo") is None:
        raise DocsUnavailable(NO_RUST)
    raise DocsUnavailable(NOT_INSTALLED)


async def load_docs(env: Mapping[str, str]) -> Docs:
    """The documentation and its index, found (rustup run with `env`) and built on the first
    call of the process."""
    key = (os.environ.get("RUSTUP_HOME", ""), os.environ.get("HOME", ""))
    if key not in _cache:
        root = await find_docs_root(env)
        index = await asyncio.to_thread(build_index, root)
        if len(index) == 0:
            raise DocsUnavailable(NOT_INSTALLED)
        _cache[key] = Docs(root, index)
    return _cache[key]


def forget_docs() -> None:
    """Drop what `load_docs` found (the next lookup searches again)."""
    _cache.clear()


__all__ = [
    "NOT_INSTALLED",
    "NO_RUST",
    "Docs",
    "DocsUnavailable",
    "find_docs_root",
    "forget_docs",
    "load_docs",
    "rustup_doc_path",
    "rustup_home",
    "toolchain_docs",
]
