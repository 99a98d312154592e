"""Running an edit: plan it, check its syntax, write it, and render the result.

Kept apart from the tool's declaration (`rho_tools_fs.edit_file`) so that the planning,
diff and tree-sitter modules are imported on the first edit, not when rho starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from rho_kernel import run_to_completion
from rho_kernel.diagnostics import warn
from rho_kernel.security import (
    KeyBlockLines,
    ProtectedPathError,
    Redactor,
    SandboxError,
    SandboxRoot,
)
from rho_kernel.tools import PlanChanged, Preview, ToolResult, fingerprint, unified_preview
from rho_tools_fs.edit_diff import (
    HiddenLine,
    hidden_new_lines,
    new_lines_of,
    regions,
    render_diff,
    render_fresh_anchors,
)
from rho_tools_fs.edit_document import EditError
from rho_tools_fs.edit_plan import EditPlan, byte_edits, plan_edit, sandbox_hint
from rho_tools_fs.edit_write import FileChanged, WriteFailed, write_if_unchanged
from rho_tools_fs.exact_edit import debug_quote
from rho_tools_fs.syntax import MAX_SYNTAX_BYTES, SyntaxReport, check

_SPLIT_TEXT_BYTES = 40

#: `key_lines(whole_text)`: the lines of a text inside private key blocks.
KeyLines = Callable[[str], KeyBlockLines]


def _header(plan: EditPlan) -> str:
    if plan.hashline_count and plan.exact_count:
        head = (
            f"applied {plan.hashline_count} hashline + {plan.exact_count} legacy edit(s) "
            f"to {plan.shown}"
        )
    elif plan.hashline_count:
        head = f"applied {plan.hashline_count} hashline edit(s) to {plan.shown}"
    else:
        head = f"applied {plan.exact_count} edit(s) to {plan.shown}"
    if plan.notes:
        head += " (with anchor relaxation)"
        head += "".join(f"\n  {note}" for note in plan.notes)
        head += "\n  Warning: hashes were stale. Re-read file if further edits needed."
    return head


def _syntax_lines(report: SyntaxReport) -> list[str]:
    lines = [
        f"  line {issue.line}, column {issue.column}: {issue.message}"
        for issue in report.new_errors
    ]
    if report.new_error_count > len(report.new_errors):
        lines.append(f"  … and {report.new_error_count - len(report.new_errors)} more")
    return lines


def _warnings(report: SyntaxReport | None, exact_count: int) -> str:
    if report is None:
        return ""
    out = ""
    for split in report.splits:
        text = split.text.encode("utf-8")
        shown = text[:_SPLIT_TEXT_BYTES].decode("utf-8", "ignore")
        suffix = "..." if len(text) > _SPLIT_TEXT_BYTES else ""
        which = (
            f"edit {split.edit} {split.boundary}" if exact_count > 1 else f"edit {split.boundary}"
        )
        out += f"\n[warning] {which} splits a `{split.kind}` node: {debug_quote(shown)}{suffix}"
    if report.new_error_count:
        count = report.new_error_count
        noun = "error" if count == 1 else "errors"
        out += f"\n[warning] syntax: the edit introduces {count} syntax {noun} ({report.language}):"
        out += "".join("\n" + line for line in _syntax_lines(report))
    return out


def _render(
    plan: EditPlan, report: SyntaxReport | None, hidden: HiddenLine
) -> tuple[str, dict[str, Any]]:
    new_lines = new_lines_of(plan.applied.norm)
    found = regions(plan.doc, plan.ordered, new_lines)
    diff = render_diff(plan.doc, new_lines, found, hidden)
    output = (
        f"{_header(plan)}\n<diff>\n{diff}</diff>"
        f"\n<fresh-anchors>\n{render_fresh_anchors(new_lines, found, hidden)}</fresh-anchors>"
        "\nLines have fresh anchors. Use these for subsequent edits to this region."
    )
    details = {
        "path": plan.shown,
        "edits": plan.hashline_count + plan.exact_count,
        "lines_before": plan.doc.line_count,
        "lines_after": len(new_lines),
    }
    return output + _warnings(report, plan.exact_count), details


def _check_syntax(plan: EditPlan, hidden: HiddenLine) -> SyntaxReport | None:
    """The syntax report of the edit, saying nothing about lines `hidden` (new text) or
    `plan.doc.hidden` (old text) hide."""
    assert plan.language is not None
    edits, boundaries = byte_edits(plan)
    new_lines = new_lines_of(plan.applied.norm)

    def hidden_after(number: int) -> bool:
        return number <= len(new_lines) and hidden(number, new_lines[number - 1])

    try:
        return check(
            plan.language,
            plan.read.data,
            plan.new_data,
            edits,
            boundaries,
            hidden_before=plan.doc.hidden.__contains__,
            hidden_after=hidden_after,
        )
    except Exception as exc:  # a grammar problem must not stop the edit itself
        warn(f"syntax check of {plan.shown} ({plan.language}) failed: {exc}")
        return None


async def edit_file_at(
    root: SandboxRoot,
    path: str,
    edits: list[Any],
    *,
    syntax_check: bool = True,
    reject_syntax_errors: bool = False,
    key_lines: KeyLines = KeyBlockLines.of,
    planned: str | None = None,
) -> ToolResult:
    """Apply `edits` to the file at `path` (the whole tool, with its settings as arguments).
    Lines `key_lines` finds in the old or new text are shown as `[REDACTED]`. With `planned`
    (the base of the preview the user approved), raises `PlanChanged` rather than edit a
    file that changed since."""
    try:
        plan = await asyncio.to_thread(plan_edit, root, path, edits, key_lines)
    except EditError as exc:
        return ToolResult.error(str(exc))
    if planned is not None and fingerprint(plan.read.data) != planned:
        raise PlanChanged(path)
    if plan.unchanged:
        return ToolResult(f"{_header(plan)}\n  (no changes: the file already has this content)")
    new_lines = new_lines_of(plan.applied.norm)
    hidden = hidden_new_lines(plan.doc, key_lines(plan.applied.norm), plan.ordered, new_lines)
    report = None
    if syntax_check and plan.language and len(plan.new_data) <= MAX_SYNTAX_BYTES:
        report = await asyncio.to_thread(_check_syntax, plan, hidden)
    if reject_syntax_errors and report is not None and report.new_error_count:
        count = report.new_error_count
        return ToolResult.error(
            f"edit_file: edit refused: it would add {count} syntax error"
            f"{'' if count == 1 else 's'} to `{plan.shown}` ({report.language}); nothing was "
            "written:\n" + "\n".join(_syntax_lines(report))
        )
    try:
        await run_to_completion(write_if_unchanged, root, path, plan.read, plan.new_data)
    except FileChanged as exc:
        return ToolResult.error(
            f"edit_file: '{plan.shown}' changed on disk while the edit was prepared ({exc}); "
            "nothing was written. Read it again and redo the edit."
        )
    except ProtectedPathError as exc:
        return ToolResult.error(f"edit_file: {exc}")
    except SandboxError as exc:
        return ToolResult.error(f"edit_file: {exc}. {sandbox_hint(root)}")
    except WriteFailed as exc:
        return ToolResult.error(f"edit_file: failed to write '{plan.shown}': {exc}")
    output, details = _render(plan, report, hidden)
    return ToolResult(output, details=details)


async def preview_edit(
    root: SandboxRoot,
    path: str,
    edits: list[Any],
    *,
    key_lines: KeyLines = KeyBlockLines.of,
    redactor: Redactor | None = None,
) -> Preview | None:
    """The diff `edits` would make to the file at `path` as it is now, redacted by
    `redactor` with the whole file's context, and its base (None when the edits cannot be
    planned, or change nothing: the call then reports that)."""
    try:
        plan = await asyncio.to_thread(plan_edit, root, path, edits, key_lines)
    except EditError:
        return None
    if plan.unchanged:
        return None
    old = plan.read.data.decode("utf-8", errors="replace")
    new = plan.new_data.decode("utf-8", errors="replace")
    diff = await asyncio.to_thread(unified_preview, plan.shown, old, new, redactor=redactor)
    return Preview(diff, fingerprint(plan.read.data))


__all__ = ["edit_file_at", "preview_edit"]
