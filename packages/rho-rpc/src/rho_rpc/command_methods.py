"""The command methods: `listCommands` and `executeCommand`, over the commands every plugin
offers through `rho_register_commands` (an extension's commands, an MCP server's prompts…).

The hook is called on every request, after the work started at startup has settled, so the
commands are always the plugins' current ones. `executeCommand` runs in the serial lane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import Command, Risk, ToolError, hookspecs
from rho_kernel.rpc import INVALID_PARAMS, RpcError
from rho_rpc.diagnostics import report_once
from rho_rpc.protocol.base import NoParams
from rho_rpc.protocol.commands import (
    CommandInfo,
    ExecuteCommandParams,
    ExecuteCommandResult,
    ListCommandsResult,
)

if TYPE_CHECKING:
    from rho_kernel import Runtime

#: The error code of a command that failed (its `run` raised `ToolError`).
COMMAND_ERROR = -32020
#: How an extension's commands name their source: `extension:<name>`.
EXTENSION_SOURCE = "extension:"
#: The risks a command may declare (a `Risk`, or its value).
RISKS = tuple(str(risk) for risk in Risk)


def _problem(command: object) -> str | None:
    """Why a contribution cannot be listed as a command, or None when it can."""
    if not isinstance(command, Command):
        return f"an object of type {type(command).__name__}, which is not a Command"
    try:
        name, description, source = command.name, command.description, command.source
        risk = command.risk
    except Exception as exc:
        return f"a command whose attributes cannot be read ({type(exc).__name__}: {exc})"
    if not isinstance(name, str) or not name:
        return f"a command named {_shown(name)}; a command's name is non-empty text"
    if not isinstance(description, str) or not isinstance(source, str):
        return f"command {name!r}, whose description or source is not text"
    if not isinstance(risk, str) or risk not in RISKS:
        return f"command {name!r}, whose risk {_shown(risk)} is none of {', '.join(RISKS)}"
    return None


def _shown(value: object) -> str:
    """A short, one-line picture of a hostile value for a message."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return " ".join(text.split())[:80]


def offered_commands(runtime: Runtime) -> list[tuple[str, Command]]:
    """Every plugin's commands now, as (source, command), in the order the plugins load.

    A contribution that is not a usable `Command`, or a second one of the same name from the
    same source, is reported (once) and skipped. An empty `source` is the plugin's name.
    """
    plugins = runtime.plugins
    collected = plugins.collect(hookspecs.rho_register_commands, runtime=runtime)
    ranks = {plugin: plugins.rank(plugin) for plugin, _ in collected}
    offered: list[tuple[str, Command]] = []
    taken: set[tuple[str, str]] = set()
    for plugin, command in sorted(collected, key=lambda pair: ranks[pair[0]]):
        problem = _problem(command)
        source = (command.source or plugin) if problem is None else ""
        if problem is None and (source, command.name) in taken:
            problem = f"command {command.name!r} of source {source!r} twice"
        if problem is not None:
            report_once(runtime, f"{plugins.describe(plugin)} offered {problem} (skipped)")
            continue
        taken.add((source, command.name))
        offered.append((source, command))
    return offered


def _info(source: str, command: Command) -> CommandInfo:
    extension = source.removeprefix(EXTENSION_SOURCE)
    return CommandInfo(
        name=command.name,
        description=command.description,
        risk=Risk(command.risk).value,
        source=source,
        extension=extension if source.startswith(EXTENSION_SOURCE) else None,
    )


def _sources_asked(params: ExecuteCommandParams) -> set[str]:
    """The sources `source` and `extension` name (empty: any)."""
    asked = {params.source} if params.source is not None else set()
    if params.extension is not None:
        asked.add(f"{EXTENSION_SOURCE}{params.extension}")
    return asked


class CommandMethods:
    """One handler per command method, bound to a runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def list_commands(self, _: NoParams) -> ListCommandsResult:
        await self.runtime.startup_settled()  # commands a plugin is still loading
        offered = offered_commands(self.runtime)
        return ListCommandsResult(commands=[_info(source, c) for source, c in offered])

    async def execute_command(self, params: ExecuteCommandParams) -> ExecuteCommandResult:
        await self.runtime.startup_settled()
        asked = _sources_asked(params)
        matches = [
            (source, command)
            for source, command in offered_commands(self.runtime)
            if command.name == params.name and all(source == one for one in asked)
        ]
        if not matches:
            where = f" from {' and '.join(sorted(asked))}" if asked else ""
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: name: no command {params.name!r}{where} (see listCommands)",
            )
        if len(matches) > 1:
            sources = ", ".join(source for source, _ in matches)
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: name: {params.name!r} is offered by {sources}; say which "
                "with source",
            )
        try:
            output = await matches[0][1].run(params.args)
        except ToolError as exc:
            raise RpcError(COMMAND_ERROR, str(exc)) from None
        return ExecuteCommandResult(output=output if isinstance(output, str) else str(output))


__all__ = ["COMMAND_ERROR", "CommandMethods", "offered_commands"]
