"""rho-tools-fs' configuration: the `[tools]` section, with `[tools.edit]` for edit_file."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class EditConfig(BaseModel):
    """`[tools.edit]`: how edit_file treats the syntax of what it writes.

    `syntax_check` (default true) parses edited files with tree-sitter and reports new
    syntax errors and edit boundaries that split a token; `reject_syntax_errors` (default
    false) refuses an edit that would add syntax errors instead of applying it with a warning.
    Neither loosens anything, so a project may set them without trust.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    syntax_check: bool = True
    reject_syntax_errors: bool = False


class ToolsConfig(BaseModel):
    """`[tools]`: settings of the file tools, one sub-table per tool."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    edit: EditConfig = Field(default_factory=EditConfig)


#: The section's name in the config files.
SECTION = "tools"

__all__ = ["SECTION", "EditConfig", "ToolsConfig"]
