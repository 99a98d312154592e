"""The `edit_file` tool: change parts of a text file by line anchors or by exact text.

Two kinds of edit, mixable in one call (see `rho_tools_fs.hashline_edit` and
`rho_tools_fs.exact_edit`). All edits of a call address the file as read once; overlapping
edits are refused; the result is syntax-checked with tree-sitter (`rho_tools_fs.syntax`) and
written atomically, only if the file did not change meanwhile (`rho_tools_fs.edit_write`).
"""

from __future__ import annotations

from typing import Any

from rho_kernel import ConfigSectionError, escape_controls
from rho_kernel.tools import Phase, Preview, Risk, Tool, ToolContext, ToolResult
from rho_tools_fs.config import SECTION, EditConfig, ToolsConfig

DESCRIPTION = (
    "Edit a text file by line anchors (as read_file shows them) or by exact text. All edits "
    "of a call apply to the file as it was before the call (take every anchor from one read) "
    "and must not overlap. A stale anchor is refused with the current anchors around it. "
    "Returns a diff and fresh anchors for the edited region."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The file."},
        "edits": {
            "type": "array",
            "minItems": 1,
            "description": "Each {op, pos, end?, lines} by anchors, or {old_text, new_text}.",
            "items": {
                "type": "object",
                "properties": {
                    "op": {
                        "type": "string",
                        "enum": ["replace", "append", "prepend", "delete"],
                        "description": "replace pos (or pos..end) by lines; append or prepend "
                        "lines after or before pos; delete pos (or pos..end).",
                    },
                    "pos": {"type": "string", "description": "Anchor of the line, e.g. 12#BTMZ."},
                    "end": {"type": "string", "description": "Anchor of a range's last line."},
                    "lines": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The new lines, without anchors or line endings.",
                    },
                    "old_text": {
                        "type": "string",
                        "description": "Exact text to replace; it must occur once.",
                    },
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


def outline_edit(arguments: dict[str, Any], result: ToolResult) -> str | None:
    """`edit_file src/app.py: 2 edits, 120 → 123 lines` (or the first line of the error)."""
    path = escape_controls(str(arguments.get("path", "?"))[:100])
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


def argument_problem(args: dict[str, Any]) -> str | None:
    """What is wrong with edit_file's arguments as a whole (None: a path and a list of edits,
    nothing else)."""
    if not isinstance(args.get("path"), str):
        return "edit_file: missing 'path' (a file path string)"
    edits = args.get("edits")
    if edits is None:
        return "edit_file: missing 'edits' (an array of edit objects)"
    if not isinstance(edits, list):
        return "edit_file: 'edits' must be an array of edit objects"
    unknown = sorted(set(args) - {"path", "edits"})
    if unknown:
        return f"edit_file: unknown argument(s): {', '.join(escape_controls(k) for k in unknown)}"
    return None


class EditFile(Tool):
    """edit_file as a `Tool` (its edits argument has a hand-written schema and checks)."""

    name = "edit_file"
    description = DESCRIPTION
    parameters = PARAMETERS
    risk = Risk.WRITE
    phase = Phase.EXECUTION
    rule_subject = "path"

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate the arguments and edit."""
        problem = argument_problem(args)
        if problem is not None:
            return ToolResult.error(problem)
        from rho_tools_fs.edit_run import edit_file_at  # on the first edit, not at startup

        settings = edit_settings(ctx)
        return await edit_file_at(
            ctx.root,
            args["path"],
            args["edits"],
            syntax_check=settings.syntax_check,
            reject_syntax_errors=settings.reject_syntax_errors,
            key_lines=ctx.key_block_lines,
            planned=ctx.planned,
        )

    async def check(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why the edit cannot run, whatever the file holds: malformed arguments or edits, or
        a file that is missing, not a regular file, refused or unreadable (see
        `rho_tools_fs.edit_plan.check_edit`)."""
        problem = argument_problem(arguments)
        if problem is not None:
            return problem
        import asyncio

        from rho_tools_fs.edit_document import EditError
        from rho_tools_fs.edit_plan import check_edit  # on the first edit, not at startup

        try:
            await asyncio.to_thread(check_edit, ctx.root, arguments["path"], arguments["edits"])
        except EditError as exc:
            return str(exc)
        return None

    async def preview(self, arguments: dict[str, Any], ctx: ToolContext) -> Preview | None:
        """The diff these edits would make, planned from the file as it is now."""
        path, edits = arguments.get("path"), arguments.get("edits")
        if not isinstance(path, str) or not isinstance(edits, list):
            return None
        from rho_tools_fs.edit_run import preview_edit  # on the first edit, not at startup

        return await preview_edit(
            ctx.root, path, edits, key_lines=ctx.key_block_lines, redactor=ctx.redactor
        )

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """See `outline_edit`."""
        try:
            return outline_edit(arguments, result)
        except Exception:
            return None


edit_file = EditFile()

__all__ = [
    "DESCRIPTION",
    "PARAMETERS",
    "EditFile",
    "argument_problem",
    "edit_file",
    "edit_settings",
]
