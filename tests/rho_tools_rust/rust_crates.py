"""Real Rust crates for the rho-tools-rust tests, built with the real toolchain.

The suite points HOME at a temporary folder; rustup and cargo keep using the real
toolchain through RUSTUP_HOME and CARGO_HOME (read while HOME is still the real one).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_REAL_HOME = Path(os.environ.get("HOME", str(Path.home())))
TOOLCHAIN_ENV = {
    "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(_REAL_HOME / ".rustup")),
    "CARGO_HOME": os.environ.get("CARGO_HOME", str(_REAL_HOME / ".cargo")),
}

MANIFEST = '[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n{extra}'


def write_crate(folder: Path, files: dict[str, str], name: str = "demo", extra: str = "") -> Path:
    """A crate `name` in `folder` with these source files (paths relative to it)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text(MANIFEST.format(name=name, extra=extra))
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return folder.resolve()


def run_cargo(crate: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cargo <args> --message-format=json` in `crate`: the real JSON, captured."""
    return subprocess.run(
        ["cargo", *args, "--message-format=json", "--color=never"],
        cwd=crate,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


TYPE_ERROR = 'fn main() {\n    let x: u32 = "a";\n    println!("{x}");\n}\n'
UNUSED = "fn main() {\n    let unused = 5;\n}\n"
LEN_ZERO = 'fn main() {\n    let v = vec![1];\n    if v.len() == 0 {\n        println!("empty");\n    }\n}\n'
BUILD_SCRIPT = 'fn main() {\n    println!("cargo:warning=generated code is stale");\n}\n'


def hostile_toolchain(project: Path, marker: Path) -> None:
    """A `rust-toolchain.toml` in `project` naming a folder of the project as its toolchain:
    its `rustc` and `rustup`-reachable programs write `marker` and print a fake text, and
    its documentation folder holds an empty standard library index."""
    folder = project / "toolchain"
    (folder / "bin").mkdir(parents=True)
    for program in ("rustc", "cargo", "rustdoc"):
        script = folder / "bin" / program
        script.write_text(f"#!/bin/sh\necho ran > '{marker}'\necho fake {program}\n")
        script.chmod(0o755)
    docs = folder / "share" / "doc" / "rust" / "html" / "std"
    docs.mkdir(parents=True)
    (docs / "index.html").write_text("<html></html>")
    (docs / "all.html").write_text("<html></html>")
    (project / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{folder}"\n')
