"""`listPlugins` (and `rho --plugins`)."""

from __future__ import annotations

from pydantic import Field

from rho_rpc.protocol.base import Result, Wire


class PluginEntry(Wire):
    """A loaded plugin."""

    name: str = Field(description="The name it is registered under (its entry-point name).")
    version: str | None = Field(description="The version of its distribution, when known.")
    hooks: list[str] = Field(description="The hooks it implements.")
    distribution: str | None = Field(
        None, description="The installed package that provides it (null when unknown)."
    )
    tools: list[str] = Field(
        default_factory=list, description="The tools it contributes (that rho kept)."
    )
    rpcMethods: list[str] = Field(
        default_factory=list, description="The JSON-RPC methods it contributes (that rho kept)."
    )


class FailedPlugin(Wire):
    """A plugin that could not be loaded."""

    name: str = Field(description="Its entry-point name.")
    distribution: str | None = Field(
        None, description="The installed package that provides it (null when unknown)."
    )
    version: str | None = Field(None, description="The version of that package.")
    error: str = Field(description="Why it was skipped.")


class ListPluginsResult(Result):
    """`listPlugins` result."""

    plugins: list[PluginEntry]
    failed: list[FailedPlugin] = Field(
        default_factory=list, description="Plugins that failed to load."
    )


__all__ = ["FailedPlugin", "ListPluginsResult", "PluginEntry"]
