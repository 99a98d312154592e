"""The extension methods: `listExtensions` and `reloadExtensions`, added through
`rho_register_rpc_methods`. (The extensions' commands are offered through
`rho_register_commands`, see `rho_ext_js.commands`.)"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rho_ext_js.plugin import METHODS
from rho_kernel import RpcError, RpcMethod, Runtime
from rho_kernel.rpc import NoParams, declared_methods

#: The error code of extensions that are not running (the code of a failed command too).
EXTENSION_ERROR = -32020


class _Model(BaseModel):
    """Base of these methods' models: their schemas are built on first use, off start-up."""

    model_config = ConfigDict(defer_build=True)


class ExtensionInfo(_Model):
    """One extension: where it is, whether it runs, and what it contributes."""

    name: str = Field(description="The discovery name (file stem or folder name).")
    level: str = Field(description="`user` (~/.rho/extensions) or `project` (.rho/extensions).")
    path: str = Field(description="The entry file.")
    state: str = Field(description="loaded, failed, untrusted, disabled or stopped.")
    loaded: bool
    version: str | None = None
    tools: list[str] = Field(default_factory=list)
    hooks: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    error: str | None = Field(None, description="Why it is not running.")


class ListExtensionsResult(_Model):
    """Every extension rho found."""

    extensions: list[ExtensionInfo]


class FailedExtension(_Model):
    """An extension a reload could not start."""

    name: str
    error: str


class ReloadExtensionsResult(_Model):
    """What a reload changed."""

    added: list[str]
    reloaded: list[str]
    removed: list[str]
    failed: list[FailedExtension]


class ExtensionMethods:
    """The handlers, finding the runtime's `ExtensionManager` when called."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def _manager(self) -> Any:
        from rho_ext_js.running import manager_of

        manager = manager_of(self.runtime)
        if manager is None:
            raise RpcError(EXTENSION_ERROR, "extensions are not running in this rho")
        return manager

    async def list_extensions(self, _: NoParams) -> ListExtensionsResult:
        await self.runtime.startup_settled()
        manager = self._manager()
        return ListExtensionsResult(
            extensions=[_info(manager.extensions[name]) for name in sorted(manager.extensions)]
        )

    async def reload_extensions(self, _: NoParams) -> ReloadExtensionsResult:
        report = await self._manager().reload()
        return ReloadExtensionsResult(
            added=report.added,
            reloaded=report.reloaded,
            removed=report.removed,
            failed=[FailedExtension(name=n, error=e) for n, e in report.failed],
        )


def _info(extension: Any) -> ExtensionInfo:
    manifest = extension.manifest if extension.state == "loaded" else None
    return ExtensionInfo(
        name=extension.source.name,
        level=extension.source.level,
        path=str(extension.source.entry),
        state=extension.state,
        loaded=extension.state == "loaded",
        version=manifest.version if manifest else None,
        tools=[t.name for t in manifest.tools] if manifest else [],
        hooks=sorted(manifest.hooks) if manifest else [],
        commands=[c.name for c in manifest.commands] if manifest else [],
        error=extension.error,
    )


def extension_methods(runtime: Runtime) -> list[RpcMethod]:
    """The methods, bound to `runtime` (names, summaries and concurrency as the plugin
    declares them in `rho_ext_js.plugin.METHODS`)."""
    handlers = ExtensionMethods(runtime)
    parts: dict[str, tuple[Any, type[BaseModel], type[BaseModel]]] = {
        "listExtensions": (handlers.list_extensions, NoParams, ListExtensionsResult),
        "reloadExtensions": (handlers.reload_extensions, NoParams, ReloadExtensionsResult),
    }
    return declared_methods(METHODS, parts)


__all__ = ["EXTENSION_ERROR", "extension_methods"]
