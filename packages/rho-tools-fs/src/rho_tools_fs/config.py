"""rho-tools-fs' configuration: the `[tools.edit]` section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class EditConfig(BaseModel):
    """`[tools.edit]`: how edit_file treats the syntax of what it writes.

    `syntax_check` (default true) parses edited files with tree-sitter and reports new
    syntax errors and edit boundaries that split a token; `reject_syntax_errors` (default
    false) refuses an edit that would add syntax errors instead of applying it with a warning.
    """

    model_config = ConfigDict(extra="ignore")

    syntax_check: bool = True
    reject_syntax_errors: bool = False


#: The section's name in the config files.
EDIT_SECTION = "tools.edit"

__all__ = ["EDIT_SECTION", "EditConfig"]
