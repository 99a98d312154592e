"""`listCommands` and `executeCommand`: the commands plugins offer (`rho_register_commands`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rho_rpc.protocol.base import Params, Result, Wire


class CommandInfo(Wire):
    """A command a client can run with `executeCommand`."""

    name: str
    description: str
    risk: Literal["read", "write", "destructive", "network"] = Field(
        description="What running it may do."
    )
    source: str = Field(
        description="Who offers it: `extension:<name>` for a command of an extension, "
        "`mcp:<server>` for a prompt of an MCP server, or a plugin's name."
    )
    extension: str | None = Field(
        None, description="For a source `extension:<name>`: the name of the extension."
    )


class ListCommandsResult(Result):
    """`listCommands` result."""

    commands: list[CommandInfo]


class ExecuteCommandParams(Params):
    """`executeCommand` params."""

    name: str = Field(description="The command's name.")
    args: str = Field("", description="The text the command receives.")
    source: str | None = Field(
        None, description="Whose command, as listCommands names it (when two offer the name)."
    )
    extension: str | None = Field(
        None, description="Which extension's command: the same as source `extension:<name>`."
    )


class ExecuteCommandResult(Result):
    """What the command returned."""

    output: str


__all__ = ["CommandInfo", "ExecuteCommandParams", "ExecuteCommandResult", "ListCommandsResult"]
