"""The `rho-ext-js` plugin (entry point `rho-ext-js = "rho_ext_js.plugin"`): owns
`[extensions]`, starts the extensions after `ready`, adds their RPC methods and offers their
commands.

Nothing here imports V8 or tree-sitter: extensions are found and loaded by work started at
`rho_startup`, which the first prompt and `listTools` wait for. Where there are none, the
extension manager is not even imported until a request needs it (`rho_ext_js.running`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from rho_ext_js.config import ExtensionsConfig
from rho_kernel import hookimpl

if TYPE_CHECKING:
    from rho_kernel import Command, RpcMethod, Runtime

#: The config section this plugin reads.
SECTION = "extensions"


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[extensions]` (read it with `config.section("extensions", ExtensionsConfig)`)."""
    return {SECTION: ExtensionsConfig}


@hookimpl
def rho_project_files_to_trust(root: Path) -> list[str]:
    """The project's extension sources: they run only while `rho trust` vouches for them."""
    from rho_ext_js.trust import project_extension_files

    return project_extension_files(root)


@hookimpl
def rho_startup(runtime: Runtime) -> None:
    """Start the extensions in the background; their hooks join the loop."""
    from rho_ext_js import running
    from rho_ext_js.interception import HOOKS_PLUGIN, ExtensionHooks

    runtime.plugins.register(ExtensionHooks(runtime), HOOKS_PLUGIN, distribution="rho-ext-js")
    running.start(runtime)


@hookimpl
def rho_shutdown(runtime: Runtime) -> None:
    """Stop every extension's isolate."""
    from rho_ext_js.running import current_manager

    manager = current_manager(runtime)
    if manager is not None:
        manager.close()


#: The extension methods: name, summary, and whether it runs while a prompt runs.
METHODS = (
    (
        "listExtensions",
        "Every extension found, whether it runs, and what it contributes.",
        True,
    ),
    (
        "reloadExtensions",
        "Re-read the extensions: load new ones, re-run changed ones, stop removed ones; the "
        "model sees the new tools from its next request.",
        False,
    ),
)


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """`listExtensions` and `reloadExtensions` (their handlers and models are imported on
    the first request, see `rho_ext_js.rpc`)."""
    from rho_kernel.rpc import deferred_methods

    def build() -> list[RpcMethod]:
        from rho_ext_js.rpc import extension_methods

        return extension_methods(runtime)

    return deferred_methods(METHODS, build)


@hookimpl
def rho_register_commands(runtime: Runtime) -> list[Command]:
    """The running extensions' commands (`listCommands`, `executeCommand`), source
    `extension:<name>`; none before an extension was looked at (no manager is made for it)."""
    from rho_ext_js.running import current_manager

    manager = current_manager(runtime)
    if manager is None:
        return []
    from rho_ext_js.commands import extension_commands

    return extension_commands(manager)


__all__ = [
    "METHODS",
    "SECTION",
    "rho_project_files_to_trust",
    "rho_register_commands",
    "rho_register_config_sections",
    "rho_register_rpc_methods",
    "rho_shutdown",
    "rho_startup",
]
