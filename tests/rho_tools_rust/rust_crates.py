"""Real Rust crates for the rho-tools-rust tests, built with the real toolchain.

The suite points HOME at a temporary folder; rustup and cargo keep using the real
toolchain through RUSTUP_HOME and CARGO_HOME (read while HOME is still the real one, or
from the user's own home where HOME was moved before the suite started). A test that needs
the toolchain skips, naming cargo, where it cannot run (`needs_cargo`, `needs_nightly`).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest


def _toolchain_home(variable: str, folder: str) -> str:
    """`variable` if it is set; else `folder` in HOME, or in the user's home (the password
    database's) where HOME has none: rustup finds no toolchain in a moved HOME."""
    if os.environ.get(variable):
        return os.environ[variable]
    homes = [Path.home(), Path(pwd.getpwuid(os.getuid()).pw_dir)]
    found = next((home / folder for home in homes if (home / folder).is_dir()), None)
    return str(found or homes[0] / folder)


TOOLCHAIN_ENV = {
    "RUSTUP_HOME": _toolchain_home("RUSTUP_HOME", ".rustup"),
    "CARGO_HOME": _toolchain_home("CARGO_HOME", ".cargo"),
}


@cache
def missing_toolchain(channel: str = "") -> str | None:
    """Why `cargo` (`cargo +CHANNEL` for a `channel`) cannot run here, or None where it can."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return "cargo is not installed (.ci/run installs a Rust toolchain with rustup)"
    name = f"cargo +{channel}" if channel else "cargo"
    env = {**os.environ, **TOOLCHAIN_ENV, "RUSTUP_AUTO_INSTALL": "0", "RUST_BACKTRACE": "0"}
    env.pop("RUSTUP_TOOLCHAIN", None)
    try:
        done = subprocess.run(
            [cargo, *name.split()[1:], "--version"],
            env=env,
            cwd="/",
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{name} cannot run here: {error}"
    if done.returncode == 0:
        return None
    said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[0]
    return f"{name} cannot run here: {said.removeprefix('error: ')}"


@cache
def missing_docs() -> str | None:
    """Why rustup's local documentation of the standard library is not here, or None."""
    if problem := missing_toolchain():
        return problem
    rustup = shutil.which("rustup")
    if rustup is None:
        return "rustup is not installed (the local Rust documentation is rustup's rust-docs)"
    env = {**os.environ, **TOOLCHAIN_ENV, "RUSTUP_AUTO_INSTALL": "0", "RUST_BACKTRACE": "0"}
    done = subprocess.run(
        [rustup, "doc", "--path"], env=env, cwd="/", capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0 or not Path(done.stdout.strip()).is_file():
        return "the local Rust documentation is not installed (rustup component add rust-docs)"
    return None


def _skip_unless(problem: str | None) -> pytest.MarkDecorator:
    return pytest.mark.skipif(problem is not None, reason=problem or "")


#: Skips a test where `cargo` cannot run (not installed, or rustup has no toolchain).
needs_cargo = _skip_unless(missing_toolchain())
#: Skips a test where `cargo +nightly` cannot run.
needs_nightly = _skip_unless(missing_toolchain("nightly"))
#: Skips a test where rustup, which installs and chooses the toolchain, is missing.
needs_rustup = _skip_unless(
    None if shutil.which("rustup") else "rustup is not installed (it chooses the Rust toolchain)"
)
#: Skips a test where the local documentation of the standard library is missing.
needs_docs = _skip_unless(missing_docs())

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
