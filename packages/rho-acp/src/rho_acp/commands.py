"""The session's commands, announced with `available_commands_update` and run when a prompt
is `/name args…`: every plugin's `rho_kernel.Command` (extensions' commands, MCP servers'
prompts), and rho's own `compact` and `tree`.

A command's output is the agent's answer, except an MCP server's prompt (source `mcp:…`):
its text is sent to the model as the prompt, as the server means it to be.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp.helpers import update_available_commands
from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

if TYPE_CHECKING:
    from rho_kernel import Command, Runtime

#: rho's own commands: name → description.
OWN = {
    "compact": "Fold older turns of this session into a summary now",
    "tree": "Show this session's tree: every branch and where it continues (see _rho/tree)",
}


def plugin_commands(runtime: Runtime) -> dict[str, Command]:
    """Every plugin's commands by name (the first of a name wins; rho's own names are
    kept for rho)."""
    from rho_kernel import hookspecs

    found: dict[str, Command] = {}
    for _, command in runtime.plugins.collect(hookspecs.rho_register_commands, runtime=runtime):
        name = getattr(command, "name", "")
        if isinstance(name, str) and name and name not in OWN and name not in found:
            found[name] = command
    return found


def announcement(runtime: Runtime) -> Any:
    """The `available_commands_update` of the session's commands now."""
    listed = [AvailableCommand(name=name, description=text) for name, text in OWN.items()]
    for name, command in plugin_commands(runtime).items():
        listed.append(
            AvailableCommand(
                name=name,
                description=command.description or name,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint="arguments")),
            )
        )
    return update_available_commands(listed)


def parse(text: str) -> tuple[str, str] | None:
    """`(name, args)` of a prompt that is `/name args…`, or None."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].partition(" ")
    return (name, args.strip()) if name else None


__all__ = ["OWN", "announcement", "parse", "plugin_commands"]
