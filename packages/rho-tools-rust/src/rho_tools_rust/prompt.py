"""The Rust tooling block of the system prompt, for a project with a `Cargo.toml`."""

from __future__ import annotations

import stat
from pathlib import Path

RUST_TOOLING = """\
# Rust tooling
This is a Rust project (Cargo.toml at the root). Prefer the Rust tools to shell commands:
they return structured compiler output.
- cargo_check after each edit: errors and warnings with file:line:column, codes and fixes
  (all_targets=true also checks the tests).
- cargo_clippy for lints before you finish; cargo_fix applies the machine-applicable fixes.
- cargo_test runs the tests and names each failing test with its panic message
  (test_name narrows the run).
- rustc_explain E0308 explains an error code; rustdoc_lookup Option::map gives a standard
  library item's exact signature and docs; crates_io_lookup checks a crate's versions and
  dependencies before you add it."""


def has_cargo_manifest(root: Path) -> bool:
    """Whether `root` holds a regular `Cargo.toml` (only its presence is checked: nothing is
    run, nothing read)."""
    try:
        info = (root / "Cargo.toml").lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode)


__all__ = ["RUST_TOOLING", "has_cargo_manifest"]
