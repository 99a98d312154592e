"""The file-edit class: one rule name, `edit`, for every tool that writes the file named
by its `path` argument, so that `edit(src/**)` covers `write_file` and `edit_file` alike.

A tool is in the class when it declares that its calls are matched on a path
(`rule_subject="path"`) and that it writes (`risk="write"`): `write_file`, `edit_file`,
and any plugin's tool declared so — the same tools the `auto-edit` mode runs. A tool that
deletes or does more than write (a `risk` of `destructive`) and one that only reads are
not. A rule naming `edit` names the class and nothing else: not a tool that happens to be
called `edit` (unless it is in the class), nor any tool through a pattern (`e*` matches
tool names only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.approvals.rules import ApprovalRule
    from rho_kernel.tools.base import Tool

#: The rule name of the file-edit class (`edit(src/**)`, `edit(**)`).
EDIT_CLASS = "edit"


def edits_files(tool: Tool) -> bool:
    """Whether `tool` is in the file-edit class (see the module)."""
    from rho_kernel.tools.base import Risk

    return tool.rule_subject == "path" and tool.risk == Risk.WRITE


def rule_names(rule: ApprovalRule, tool: Tool) -> bool:
    """Whether `rule` is about `tool`: by the tool's name or a pattern, or, for `edit`, by
    the tool being in the file-edit class."""
    if rule.tool == EDIT_CLASS:
        return edits_files(tool)
    return rule.names(tool.name)


__all__ = ["EDIT_CLASS", "edits_files", "rule_names"]
