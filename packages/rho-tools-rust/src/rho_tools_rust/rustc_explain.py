"""The `rustc_explain` tool: the compiler's long explanation of an error code."""

from __future__ import annotations

from typing import Any

from rho_kernel.tools import Phase, Risk, ToolContext, ToolError, ToolResult, tool
from rho_tools_rust.cargo_args import check_error_code
from rho_tools_rust.cargo_runner import run_toolchain, stderr_tail, tool_environment
from rho_tools_rust.rustup import ToolchainUnknown, pin_user_toolchain

NAME = "rustc_explain"
#: Characters of an explanation kept (the longest ones run to about 10,000).
MAX_CHARS = 20000


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    code = str(arguments.get("error_code", ""))[:20]
    state = "failed" if result.is_error else f"{len(result.output)} chars"
    return f"{NAME}: {code} ({state})"


@tool(name=NAME, risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline, runs_processes=True)
async def rustc_explain(error_code: str, *, ctx: ToolContext) -> ToolResult:
    """Explain a Rust compiler error code (`rustc --explain E0308`): what it means, with
    erroneous and corrected examples.

    Args:
        error_code: The code, e.g. `E0308` (as in `error[E0308]: mismatched types`).
    """
    try:
        code = check_error_code(NAME, error_code)
        # The user's toolchain, never one the project's rust-toolchain.toml names: this
        # runs without asking.
        env = await pin_user_toolchain(tool_environment(ctx))
        argv = ["rustc", "--explain", code]
        result = await run_toolchain(ctx, NAME, argv, env=env, live=False)
    except ToolchainUnknown as exc:
        return ToolResult.error(f"{NAME}: {exc}")
    except ToolError as exc:
        return ToolResult.error(str(exc))
    if not result.ok:
        if "not a valid error code" in result.stderr:
            return ToolResult.error(f"{NAME}: {code} is not a known error code")
        tail = stderr_tail(result.stderr, lines=10)
        return ToolResult.error(f"{NAME}: rustc --explain {code} failed: {tail}")
    text = result.stdout.strip()
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + "\n… (explanation cut)"
    return ToolResult(text or f"{NAME}: rustc has no explanation for {code}")


__all__ = ["rustc_explain"]
