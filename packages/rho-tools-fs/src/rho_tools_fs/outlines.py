"""One-line outlines shared by the listing tools (find_files, search_files)."""

from __future__ import annotations

from typing import Any

from rho_kernel import escape_controls
from rho_kernel.tools import ToolResult


def listing_outline(
    tool: str, arguments: dict[str, Any], result: ToolResult, *, noun: str, none: str, cut: str
) -> str:
    """`{tool} '{pattern}': {n} {noun}` (+ ` (truncated)`); `none` and `cut` are the starts of
    the tool's no-result text and of its truncation notice."""
    pattern = escape_controls(str(arguments.get("pattern", ""))[:120])
    if result.is_error:
        return f"{tool} '{pattern}': error"
    lines = result.output.split("\n")
    truncated = lines[-1].startswith(cut)
    count = 0 if result.output.startswith(none) else len(lines) - truncated
    return f"{tool} '{pattern}': {count} {noun}" + (" (truncated)" if truncated else "")


__all__ = ["listing_outline"]
