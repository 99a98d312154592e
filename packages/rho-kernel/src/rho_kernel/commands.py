"""Commands: what a client lists (`listCommands`) and runs by name (`executeCommand`)."""

from __future__ import annotations

from rho_kernel.tools.base import Risk


class Command:
    """A command a client can list (`listCommands`) and run (`executeCommand`), offered by a
    plugin through `rho_register_commands`: an extension's command, an MCP server's prompt…

    Unlike a tool, a command is run by the client (a person picking it from a menu), never by
    the model, and without asking for approval: its `risk` is shown so that the client can
    say what it may do. Subclass it, set the attributes (as class attributes or in
    `__init__`) and implement `run`.

    Added in 0.3.
    """

    #: What `executeCommand`'s `name` matches.
    name: str = ""
    #: One line saying what it does, for the client's menu.
    description: str = ""
    #: Who offers it, e.g. `"extension:<name>"` or `"mcp:<server>"`; `executeCommand`'s
    #: `source` picks one of the commands two sources offer under one name. Empty: the
    #: plugin's registered name.
    source: str = ""
    #: What running it may do (shown to the client).
    risk: Risk = Risk.READ

    async def run(self, args: str) -> str:
        """Run the command with `args` (the text the client passed; "" when none) and return
        its output. Raise `ToolError` for a failure meant for the user: the client gets its
        message as the error of `executeCommand`."""
        raise NotImplementedError


__all__ = ["Command"]
