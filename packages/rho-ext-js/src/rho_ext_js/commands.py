"""The running extensions' commands, offered to clients through `rho_register_commands`
(`listCommands`, `executeCommand`), each with the source `extension:<name>`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import Command

if TYPE_CHECKING:
    from rho_ext_js.manager import ExtensionManager
    from rho_ext_js.manifest import CommandSpec


class ExtensionCommand(Command):
    """A command a loaded extension declares, run in its isolate by the extension manager."""

    def __init__(self, manager: ExtensionManager, extension: str, spec: CommandSpec) -> None:
        self.manager = manager
        self.extension = extension
        self.spec = spec
        self.name = spec.name
        self.description = spec.description
        self.source = f"extension:{extension}"
        self.risk = spec.risk

    async def run(self, args: str) -> str:
        """Run the handler with what the command's risk allows (a stopped extension is
        restarted first); its failure is a `ToolError` saying why."""
        output = await self.manager.call_command(self.spec, self.extension, args)
        return output if isinstance(output, str) else str(output)


def extension_commands(manager: ExtensionManager) -> list[Command]:
    """The commands of the running extensions (and of the stopped ones a call restarts), by
    extension name."""
    return [
        ExtensionCommand(manager, extension.source.name, spec)
        for extension in manager.loaded()
        for spec in (extension.manifest.commands if extension.manifest else ())
    ]


__all__ = ["ExtensionCommand", "extension_commands"]
