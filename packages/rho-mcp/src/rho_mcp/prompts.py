"""A server's prompts, offered as commands (`listCommands`, `executeCommand`).

A prompt is named as its server's tools are (`mcp__<server>__<prompt>`), with the source
`mcp:<server>`. The command's text gives its arguments: `name=value` words set that argument,
the other words fill the declared arguments in order (the last one takes the rest), quoted
as a shell would. Running it answers the prompt's messages as text, to send as a prompt.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from rho_kernel import Command, Risk, ToolError
from rho_mcp.naming import unique_name
from rho_mcp.results import block_text, cap

if TYPE_CHECKING:
    from rho_mcp.connection import ServerConnection


def prompt_arguments(declared: list[Any], text: str) -> dict[str, str]:
    """The arguments of a prompt whose declared arguments are `declared` (the SDK's
    `PromptArgument`s), from a command's `text`. Raises `ToolError` for text that cannot be
    split, an unknown `name=` or a required argument left out."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ToolError(f"the arguments cannot be read: {exc}") from None
    names = [argument.name for argument in declared]
    given: dict[str, str] = {}
    loose: list[str] = []
    for word in words:
        key, equals, value = word.partition("=")
        if equals and key in names:
            given[key] = value
        else:
            loose.append(word)
    free = [name for name in names if name not in given]
    for index, word in enumerate(loose):
        if index >= len(free):
            if not free:
                raise ToolError(
                    f"the prompt takes no more arguments than {', '.join(names) or 'none'}"
                )
            given[free[-1]] += " " + word
            continue
        given[free[index]] = word
    missing = [a.name for a in declared if a.required and a.name not in given]
    if missing:
        raise ToolError(f"the prompt needs {', '.join(missing)} (give name=value)")
    return given


class PromptCommand(Command):
    """Prompt `remote` of the server `connection` runs, as a command called `name`."""

    def __init__(self, connection: ServerConnection, remote: Any, name: str) -> None:
        self.connection = connection
        self.remote = remote
        self.name = name
        arguments = " ".join(
            f"<{a.name}>" if a.required else f"[{a.name}]" for a in remote.arguments or ()
        )
        about = remote.description or remote.title or f"the prompt {remote.name}"
        self.description = f"{about} ({arguments})" if arguments else about
        self.source = f"mcp:{connection.name}"
        self.risk = Risk.READ

    async def run(self, args: str) -> str:
        """The prompt's messages as text."""
        arguments = prompt_arguments(list(self.remote.arguments or ()), args)
        result = await self.connection.request(
            lambda client: client.get_prompt(self.remote.name, arguments),
            f"its prompt '{self.remote.name}'",
        )
        kept: list[dict[str, Any]] = []
        parts = []
        for message in result.messages:
            text = block_text(message.content, kept)
            parts.append(text if message.role == "user" else f"[{message.role}] {text}")
        return cap("\n\n".join(parts))


def prompt_commands(connections: list[ServerConnection]) -> list[Command]:
    """The prompts of the servers that have listed theirs."""
    commands: list[Command] = []
    taken: set[str] = set()
    for connection in connections:
        for remote in connection.offer.prompts:
            name = unique_name(connection.name, remote.name, taken)
            taken.add(name)
            commands.append(PromptCommand(connection, remote, name))
    return commands


__all__ = ["PromptCommand", "prompt_arguments", "prompt_commands"]
