"""Running cargo and rustc for a tool: environment, missing toolchain, start errors, output.

Commands run as argument vectors through `ToolContext.run_process` (confined by the
project's OS sandbox, own process group, timeout, output cap, cancellation), never
through a shell, in the project root.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from rho_kernel import ProcessResult, ProcessStartError
from rho_kernel.security import SandboxError
from rho_kernel.tools import ToolContext, ToolError
from rho_tools_rust.crate import target_inside
from rho_tools_rust.live_render import CargoLiveLines

#: What a machine without the toolchain is told.
INSTALL_HINT = "install Rust with rustup, https://rustup.rs"
#: Output kept per stream for the cargo tools (head and tail): enough for a large test run.
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
_PROGRESS = re.compile(
    r"^\s*(Compiling|Checking|Running|Finished|Doc-tests|Blocking|Updating|Locking|"
    r"Downloading|Downloaded|Fresh|Building|Adding|Packaging)\b"
)


def tool_environment(ctx: ToolContext) -> dict[str, str]:
    """The environment of a command the model's call starts (`ctx.command_environment()`:
    no secrets), with plain output and short panic messages."""
    env = ctx.command_environment()
    env.update({"CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0", "TERM": "dumb"})
    return env


def require_manifest(ctx: ToolContext, tool: str) -> None:
    """Raise `ToolError` unless the project root holds a Cargo.toml (cargo would otherwise
    look for one in the directories above the project)."""
    if not (ctx.root.path / "Cargo.toml").is_file():
        raise ToolError(
            f"{tool}: no Cargo.toml in the project root ({ctx.root.path}); the Rust tools "
            "work on the crate or workspace at the project root"
        )


async def run_toolchain(
    ctx: ToolContext,
    tool: str,
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    live: bool = True,
    max_output_bytes: int = MAX_OUTPUT_BYTES,
) -> ProcessResult:
    """Run `argv` (`cargo …` or `rustc …`) in `cwd` (default: the project root) and return
    how it ended. `env` defaults to `tool_environment(ctx)`; cargo builds inside the project
    (see `target_inside`). With `live`, the client sees the output as it comes, cargo's and
    libtest's JSON rendered (`CargoLiveLines`).

    Raises `ToolError` with a clear message when the program is not installed, cannot
    start, or the call was cancelled. The timeout is `[shell] max_timeout_secs`.
    """
    env = tool_environment(ctx) if env is None else dict(env)
    program = argv[0]
    if program == "cargo":
        env = target_inside(env, cwd or ctx.root.path, ctx.root.path)
    if shutil.which(program, path=env.get("PATH")) is None:
        raise ToolError(f"{tool}: {program} is not installed: {INSTALL_HINT}")
    try:
        result = await ctx.run_process(
            list(argv),
            cwd=str(cwd) if cwd is not None else None,
            env=env,
            timeout=ctx.config.shell.max_timeout_secs,
            max_output_bytes=max_output_bytes,
            live=live,
            live_filter=CargoLiveLines(ctx.root.path, cwd or ctx.root.path) if live else None,
        )
    except (ProcessStartError, SandboxError) as exc:
        raise ToolError(f"{tool}: {exc}") from None
    if result.cancelled:
        raise ToolError(f"{tool}: cancelled; {program} was stopped")
    return result


def ended_note(tool: str, result: ProcessResult, timeout: int) -> str | None:
    """A line saying rho stopped the process, or that a signal killed it; None otherwise."""
    if result.timed_out:
        return (
            f"[{tool}: timed out after {timeout}s; cargo and every process it started were stopped]"
        )
    if result.signal is not None:
        return f"[{tool}: killed by signal {result.signal}]"
    return None


def stderr_tail(text: str, *, lines: int = 40, chars: int = 4000) -> str:
    """The end of cargo's stderr without its progress lines (`Compiling …`), at most
    `lines` lines and `chars` characters, with a marker when the start was cut."""
    kept = [line for line in text.splitlines() if line.strip() and not _PROGRESS.match(line)]
    cut = len(kept) > lines
    kept = kept[-lines:]
    body = "\n".join(kept)
    if len(body) > chars:
        body, cut = body[-chars:].split("\n", 1)[-1], True
    return ("…\n" if cut else "") + body


__all__ = [
    "INSTALL_HINT",
    "MAX_OUTPUT_BYTES",
    "ended_note",
    "require_manifest",
    "run_toolchain",
    "stderr_tail",
    "tool_environment",
]
