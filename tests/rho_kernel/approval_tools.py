"""Stand-in tools for the approval rule tests: a tool's name and what its rules match on."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.tools.base import Tool

ROOT = Path("/work/project")


class NamedTool(Tool):
    """A tool that is only a name and a rule subject (rules never run it)."""

    def __init__(self, name: str, subject: str | None) -> None:
        self.name = name
        self.rule_subject = subject  # type: ignore[assignment]


RUN = NamedTool("run_command", "command")
WRITE = NamedTool("write_file", "path")
MEMORY = NamedTool("memory", None)
