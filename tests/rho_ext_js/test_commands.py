"""The extensions' commands reach clients through `rho_register_commands`: one
`ExtensionCommand` per command of a running extension, source `extension:<name>`, run by the
extension manager; none (and no manager made) before an extension was looked at."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from rho_ext_js.commands import ExtensionCommand
from rho_ext_js.manifest import CommandSpec, Manifest
from rho_ext_js.plugin import rho_register_commands
from rho_ext_js.running import MANAGER, STARTED
from rho_kernel import Risk, Stash, ToolError


@dataclass
class StandIn:
    """The part of `ExtensionManager` commands use: the running extensions, and running one."""

    extensions: list[Any]
    calls: list[tuple[str, str, str]] = field(default_factory=list)

    def loaded(self) -> list[Any]:
        return self.extensions

    async def call_command(self, command: CommandSpec, name: str, args: str) -> str:
        self.calls.append((name, command.name, args))
        if args == "boom":
            raise ToolError(f"{command.name}: boom")
        return f"{name} ran {command.name}"


def _extension(name: str, *commands: CommandSpec) -> Any:
    return SimpleNamespace(
        source=SimpleNamespace(name=name), manifest=Manifest(name, None, commands=commands)
    )


def _runtime(manager: StandIn | None = None) -> Any:
    stash = Stash()
    stash[STARTED] = True
    if manager is not None:
        stash[MANAGER] = manager  # type: ignore[assignment]
    return SimpleNamespace(stash=stash)


def test_without_a_manager_no_command_is_offered_and_none_is_made() -> None:
    runtime = _runtime()
    assert rho_register_commands(runtime) == []
    assert MANAGER not in runtime.stash


async def test_each_command_of_a_running_extension_is_offered_with_its_source() -> None:
    manager = StandIn(
        [
            _extension("ship", CommandSpec("deploy", "Ship it", Risk.WRITE)),
            _extension("quiet"),
            _extension("notes", CommandSpec("jot", "Jot it down")),
        ]
    )
    commands = rho_register_commands(_runtime(manager))
    assert all(isinstance(command, ExtensionCommand) for command in commands)
    assert [(c.source, c.name, c.description, c.risk) for c in commands] == [
        ("extension:ship", "deploy", "Ship it", Risk.WRITE),
        ("extension:notes", "jot", "Jot it down", Risk.READ),
    ]
    assert await commands[0].run("v2") == "ship ran deploy"
    assert manager.calls == [("ship", "deploy", "v2")]
    with pytest.raises(ToolError, match="deploy: boom"):
        await commands[0].run("boom")
