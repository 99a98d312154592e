"""Asking rustup about the user's own toolchain, out of the project's reach.

rustup picks the toolchain of a `rustc` or `cargo` from the working directory: a
`rust-toolchain.toml` in the project may name any folder as the toolchain (`path =
"/abs/dir"`), and rustup then runs that folder's programs. The cargo tools build the
project, so they take its toolchain as they take its build scripts (they run confined, or
ask first). The lookups that only read the toolchain's knowledge (`rustc --explain`, the
local documentation) run without asking, so they pin the toolchain the user chose:
`rustup` is asked from the filesystem root, where no project file applies, and
`RUSTUP_TOOLCHAIN` (which rustup ranks above toolchain files) is set to its answer.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from rho_kernel.process import ProcessStartError, run_process
from rho_kernel.security import SandboxError, SandboxRoot

#: Where rustup is asked about the user's toolchain: no project lies above it.
NEUTRAL_DIR = Path(os.path.abspath(os.sep))
RUSTUP_TIMEOUT_SECS = 15.0
NO_DEFAULT = "no default Rust toolchain is set: run `rustup default stable`"

_default: dict[str, str] = {}


class ToolchainUnknown(Exception):
    """rustup is installed but names no toolchain of the user's; the message says why."""


async def run_rustup(env: Mapping[str, str], *args: str) -> str | None:
    """`rustup ARGS`' stdout, run from `NEUTRAL_DIR` with `env` (give it
    `ctx.command_environment()`: no secrets), through rho's process runner, installing
    nothing on the way; None when rustup is missing, fails or hangs."""
    rustup = shutil.which("rustup", path=env.get("PATH"))
    if rustup is None:
        return None
    try:
        result = await run_process(
            [rustup, *args],
            root=SandboxRoot(NEUTRAL_DIR),
            env={**env, "RUSTUP_AUTO_INSTALL": "0"},
            timeout=RUSTUP_TIMEOUT_SECS,
        )
    except (ProcessStartError, SandboxError):
        return None
    return result.stdout if result.ok else None


async def user_toolchain(env: Mapping[str, str]) -> str | None:
    """The user's default toolchain (`stable-x86_64-unknown-linux-gnu`), asked with `env`
    and kept for the process once found; None when rustup is not installed (then no
    toolchain file applies). Raises `ToolchainUnknown` when rustup has no default."""
    key = os.environ.get("RUSTUP_HOME", "") + "\0" + os.environ.get("HOME", "")
    if key in _default:
        return _default[key]
    if shutil.which("rustup", path=env.get("PATH")) is None:
        return None
    answer = await run_rustup(env, "default")
    words = answer.split() if answer else []
    if not words or words[0] in ("no", "error:"):
        raise ToolchainUnknown(NO_DEFAULT)
    _default[key] = words[0]
    return words[0]


async def pin_user_toolchain(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with `RUSTUP_TOOLCHAIN` set to the user's toolchain (kept when `env` already
    names one: the user's own choice). Raises `ToolchainUnknown`."""
    pinned = dict(env)
    if not pinned.get("RUSTUP_TOOLCHAIN"):
        name = await user_toolchain(pinned)
        if name is not None:
            pinned["RUSTUP_TOOLCHAIN"] = name
    return pinned


def forget_toolchain() -> None:
    """Drop the toolchain `user_toolchain` found (the next call asks rustup again)."""
    _default.clear()


__all__ = [
    "NEUTRAL_DIR",
    "NO_DEFAULT",
    "ToolchainUnknown",
    "forget_toolchain",
    "pin_user_toolchain",
    "run_rustup",
    "user_toolchain",
]
