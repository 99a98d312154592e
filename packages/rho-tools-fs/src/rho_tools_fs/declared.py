"""The tools of this pack as rho registers them: declared, their implementations imported on
first use (`rho_kernel.tools.DeclaredTool`).

A rho process registers every tool at start-up but calls few of them, and many processes
call none. So the plugin registers a `DeclaredTool` per tool:
its name, risk, phase and flags are declared here, its description and parameters are read from
`schemas.json` (a copy of what the implementation describes, checked by the tests and written by
`python -m rho_tools_fs.declared`), and its module is imported when the tool is first used.
"""

from __future__ import annotations

from pathlib import Path

from rho_kernel.tools import Phase, Risk, ToolDeclaration, write_schemas

#: The tools' definitions as their implementations give them.
SCHEMAS = Path(__file__).with_name("schemas.json")

#: The tools of this pack, in rho's registration order.
DECLARATIONS = (
    ToolDeclaration(
        "read_file", "rho_tools_fs.read_file", "read_file", Risk.READ, Phase.EXPLORATION
    ),
    ToolDeclaration(
        "batch_read", "rho_tools_fs.batch_read", "batch_read", Risk.READ, Phase.EXPLORATION
    ),
    ToolDeclaration(
        "write_file",
        "rho_tools_fs.write_file",
        "write_file",
        Risk.WRITE,
        Phase.EXECUTION,
        rule_subject="path",
    ),
    ToolDeclaration("list_dir", "rho_tools_fs.list_dir", "list_dir", Risk.READ, Phase.EXPLORATION),
    ToolDeclaration(
        "edit_file",
        "rho_tools_fs.edit_file",
        "edit_file",
        Risk.WRITE,
        Phase.EXECUTION,
        rule_subject="path",
    ),
    ToolDeclaration(
        "search_files", "rho_tools_fs.search_files", "search_files", Risk.READ, Phase.EXPLORATION
    ),
    ToolDeclaration(
        "find_files", "rho_tools_fs.find_files", "find_files", Risk.READ, Phase.EXPLORATION
    ),
    ToolDeclaration(
        "run_command",
        "rho_tools_fs.run_command",
        "run_command",
        Risk.DESTRUCTIVE,
        Phase.EXECUTION,
        runs_processes=True,
        fresh_process_per_call=True,
        rule_subject="command",
    ),
    ToolDeclaration(
        "wait_for", "rho_tools_fs.wait_for", "wait_for", Risk.DESTRUCTIVE, None, runs_processes=True
    ),
    ToolDeclaration(
        "session_summary",
        "rho_tools_fs.session_summary",
        "session_summary",
        Risk.READ,
        Phase.EXPLORATION,
    ),
)

#: The tools that run command lines in the configured shell (offered only where it is installed).
SHELL_TOOLS = ("run_command", "wait_for")


if __name__ == "__main__":
    write_schemas(DECLARATIONS, SCHEMAS)


__all__ = ["DECLARATIONS", "SCHEMAS", "SHELL_TOOLS"]
