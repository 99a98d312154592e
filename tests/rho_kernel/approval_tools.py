"""Stand-in tools for the approval rule tests: a tool's name and what its rules match on."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.tools.base import UNDECLARED_RISK, Risk, Tool

ROOT = Path("/work/project")


class NamedTool(Tool):
    """A tool that is only a name and a rule subject (rules never run it)."""

    def __init__(self, name: str, subject: str | None, risk: Risk = UNDECLARED_RISK) -> None:
        self.name = name
        self.rule_subject = subject  # type: ignore[assignment]
        self.risk = risk


RUN = NamedTool("run_command", "command", Risk.DESTRUCTIVE)
WRITE = NamedTool("write_file", "path", Risk.WRITE)  # both in the file-edit class
EDIT = NamedTool("edit_file", "path", Risk.WRITE)
DELETE = NamedTool("delete_file", "path", Risk.DESTRUCTIVE)  # a path tool outside the class
READ = NamedTool("peek_file", "path", Risk.READ)  # and one that reads
MEMORY = NamedTool("memory", None)
