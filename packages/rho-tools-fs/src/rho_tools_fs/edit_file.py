"""The `edit_file` tool: change parts of a text file by line anchors or by exact text.

Two kinds of edit, mixable in one call (see `rho_tools_fs.hashline_edit` and
`rho_tools_fs.exact_edit`). All edits of a call address the file as read once; overlapping
edits are refused; the result is syntax-checked with tree-sitter (`rho_tools_fs.syntax`) and
written atomically, only if the file did not change meanwhile (`rho_tools_fs.edit_write`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from rho_kernel.cancel import run_to_completion
from rho_kernel.config import ConfigSectionError
from rho_kernel.diagnostics import warn
from rho_kernel.security import ProtectedPathError, SandboxError, SandboxRoot
from rho_kernel.tools import Phase, Risk, Tool, ToolContext, ToolResult
from rho_tools_fs.config import SECTION, EditConfig, ToolsConfig
from rho_tools_fs.edit_diff import new_lines_of, regions, render_diff, render_fresh_anchors
from rho_tools_fs.edit_document import EditError
from rho_tools_fs.edit_plan import EditPlan, byte_edits, plan_edit, sandbox_hint
from rho_tools_fs.edit_write import FileChanged, WriteFailed, write_if_unchanged
from rho_tools_fs.exact_edit import debug_quote
from rho_tools_fs.syntax import MAX_SYNTAX_BYTES, SyntaxReport, check

_SPLIT_TEXT_BYTES = 40

DESCRIPTION = """Edit a text file in the project: replace, insert or delete lines, or replace exact text.

Hashline edits address lines by the anchors read_file shows (`12#BTMZ` for the row `12#BTMZ:fn main() {`): {"op": "replace"|"append"|"prepend"|"delete", "pos": "12#BTMZ", "end": "15#QXKV" (optional: a range, for replace and delete), "lines": ["new line", ...]}. append inserts after pos, prepend before it; delete needs no lines. Exact-match edits replace text: {"old_text": "...", "new_text": "..."}; old_text must occur exactly once in the file. All edits in one call refer to the file as it was before the call, so take every anchor from the same read; edits must not overlap. A stale anchor is refused with the current anchors around it, so re-read or use those. The result shows a diff and fresh anchors for the edited region. Files inside .git/ and .rho/ are never edited."""

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "File path relative to the project root (an absolute path must be "
            "inside the project).",
        },
        "edits": {
            "type": "array",
            "minItems": 1,
            "description": "The edits, each a hashline edit (op, pos, end, lines) or an "
            "exact-match edit (old_text, new_text).",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["replace", "append", "prepend", "delete"]},
                    "pos": {"type": "string", "description": "Anchor of the line, e.g. 12#BTMZ."},
                    "end": {
                        "type": "string",
                        "description": "Anchor of the last line of a range (replace, delete).",
                    },
                    "lines": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The new lines, without anchors or line endings.",
                    },
                    "old_text": {"type": "string", "description": "Exact text to replace."},
                    "new_text": {"type": "string", "description": "Its replacement."},
                },
            },
        },
    },
    "required": ["path", "edits"],
}


def edit_settings(ctx: ToolContext) -> EditConfig:
    """The `[tools.edit]` settings in effect for this call (defaults outside a full runtime)."""
    try:
        return ctx.config.section(SECTION, ToolsConfig).edit
    except ConfigSectionError:  # a bare config without the plugin's section (tests, embedding)
        return EditConfig()


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


def _render(plan: EditPlan, report: SyntaxReport | None) -> tuple[str, dict[str, Any]]:
    new_lines = new_lines_of(plan.applied.norm)
    found = regions(plan.doc, plan.ordered, new_lines)
    output = (
        f"{_header(plan)}\n<diff>\n{render_diff(plan.doc, new_lines, found)}</diff>"
        f"\n<fresh-anchors>\n{render_fresh_anchors(new_lines, found)}</fresh-anchors>"
        "\nLines have fresh anchors. Use these for subsequent edits to this region."
    )
    details = {
        "path": plan.shown,
        "edits": plan.hashline_count + plan.exact_count,
        "lines_before": plan.doc.line_count,
        "lines_after": len(new_lines),
    }
    return output + _warnings(report, plan.exact_count), details


def _check_syntax(plan: EditPlan) -> SyntaxReport | None:
    assert plan.language is not None
    edits, boundaries = byte_edits(plan)
    try:
        return check(plan.language, plan.read.data, plan.new_data, edits, boundaries)
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
) -> ToolResult:
    """Apply `edits` to the file at `path` (the whole tool, with its settings as arguments)."""
    try:
        plan = await asyncio.to_thread(plan_edit, root, path, edits)
    except EditError as exc:
        return ToolResult.error(str(exc))
    if plan.unchanged:
        return ToolResult(f"{_header(plan)}\n  (no changes: the file already has this content)")
    report = None
    if syntax_check and plan.language and len(plan.new_data) <= MAX_SYNTAX_BYTES:
        report = await asyncio.to_thread(_check_syntax, plan)
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
    output, details = _render(plan, report)
    return ToolResult(output, details=details)


def outline_edit(arguments: dict[str, Any], result: ToolResult) -> str | None:
    """`edit_file src/app.py: 2 edits, 120 → 123 lines` (or the first line of the error)."""
    path = str(arguments.get("path", "?"))[:100]
    if result.is_error:
        return f"edit_file {path}: failed — {result.output.splitlines()[0]}"[:200]
    details = result.details if isinstance(result.details, dict) else {}
    if not details:
        return f"edit_file {path}: no changes"
    count = details["edits"]
    return (
        f"edit_file {path}: {count} edit{'' if count == 1 else 's'}, "
        f"{details['lines_before']} → {details['lines_after']} lines"
    )


class EditFile(Tool):
    """edit_file as a `Tool` (its edits argument has a hand-written schema and checks)."""

    name = "edit_file"
    description = DESCRIPTION
    parameters = PARAMETERS
    risk = Risk.WRITE
    phase = Phase.EXECUTION

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate the arguments and edit."""
        path = args.get("path")
        if not isinstance(path, str):
            return ToolResult.error("edit_file: missing 'path' (a file path string)")
        edits = args.get("edits")
        if edits is None:
            return ToolResult.error("edit_file: missing 'edits' (an array of edit objects)")
        if not isinstance(edits, list):
            return ToolResult.error("edit_file: 'edits' must be an array of edit objects")
        unknown = sorted(set(args) - {"path", "edits"})
        if unknown:
            return ToolResult.error(f"edit_file: unknown argument(s): {', '.join(unknown)}")
        settings = edit_settings(ctx)
        return await edit_file_at(
            ctx.root,
            path,
            edits,
            syntax_check=settings.syntax_check,
            reject_syntax_errors=settings.reject_syntax_errors,
        )

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """See `outline_edit`."""
        try:
            return outline_edit(arguments, result)
        except Exception:
            return None


edit_file = EditFile()

__all__ = ["DESCRIPTION", "PARAMETERS", "EditFile", "edit_file", "edit_file_at", "edit_settings"]
