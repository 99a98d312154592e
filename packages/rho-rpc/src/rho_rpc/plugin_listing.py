"""What the installed plugins are and contribute: `listPlugins` and `rho --plugins`."""

from __future__ import annotations

import io
import re
import sys

from rho_kernel import PluginHost, Runtime, scrub_surrogates
from rho_rpc.protocol.plugins import FailedPlugin, ListPluginsResult, PluginEntry

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def plugin_listing(plugins: PluginHost) -> ListPluginsResult:
    """The loaded plugins in load order, with their contributions, and the failed ones."""
    return ListPluginsResult(
        plugins=[
            PluginEntry(
                name=info.name,
                version=info.version,
                hooks=info.hooks,
                distribution=info.distribution,
                tools=info.tools,
                rpcMethods=info.rpc_methods,
            )
            for info in plugins.plugins()
        ],
        failed=[
            FailedPlugin(
                name=failure.name,
                distribution=failure.distribution,
                version=failure.version,
                error=failure.problem,
            )
            for failure in plugins.failures
        ],
    )


def format_listing(listing: ListPluginsResult) -> str:
    """The listing as text for a terminal, one block per plugin, failed plugins last."""
    count = len(listing.plugins)
    lines = [f"{count} plugin{'' if count == 1 else 's'} loaded, {len(listing.failed)} failed", ""]
    for plugin in listing.plugins:
        lines.append(_heading(plugin.name, plugin.distribution, plugin.version))
        lines.append(f"  hooks:       {_items(plugin.hooks)}")
        lines.append(f"  tools:       {_items(plugin.tools)}")
        lines.append(f"  rpc methods: {_items(plugin.rpcMethods)}")
    if listing.failed:
        lines += ["", "failed to load:"]
        for failure in listing.failed:
            lines.append(_heading(failure.name, failure.distribution, failure.version))
            lines.append(f"  error: {_clean(failure.error)}")
    return "\n".join(lines) + "\n"


def print_listing(runtime: Runtime) -> int:
    """`rho --plugins`: collect every contribution, print the listing on stdout; exit code."""
    from rho_rpc.method_registry import collect_methods

    runtime.tools.prepare(runtime.plugins.report)  # a tool with a broken schema is dropped
    collect_methods(runtime)
    text = format_listing(plugin_listing(runtime.plugins))
    stdout = sys.stdout
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(errors="backslashreplace")
    stdout.write(text)
    stdout.flush()
    return 0


def _heading(name: str, distribution: str | None, version: str | None) -> str:
    origin = "(no distribution)" if distribution is None else _clean(distribution)
    if distribution is not None and version:
        origin += f" {_clean(version)}"
    return f"{origin}: plugin '{_clean(name)}'"


def _items(names: list[str]) -> str:
    return ", ".join(_clean(name) for name in names) if names else "-"


def _clean(text: str) -> str:
    """One printable line: metadata and error text must not move the cursor or recolour."""
    text = scrub_surrogates(" ".join(text.split()))
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


__all__ = ["format_listing", "plugin_listing", "print_listing"]
