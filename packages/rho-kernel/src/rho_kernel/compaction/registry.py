"""Collecting the compaction strategies plugins contribute, by name."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from rho_kernel import hookspecs

if TYPE_CHECKING:
    from rho_kernel.loop.compaction import CompactionStrategy
    from rho_kernel.plugins import PluginHost

HOOK = "rho_register_compaction_strategies"


class DuplicateStrategy(ValueError):
    """Two plugins registered compaction strategies under the same name."""


def _problem(item: object) -> str | None:
    """Why `item` is not a usable strategy (None when it is)."""
    name = getattr(item, "name", None)
    if not isinstance(name, str) or not name.strip():
        return "it has no string `name`"
    summarize = getattr(item, "summarize", None)
    if not callable(summarize):
        return "it has no `summarize` method"
    if not inspect.iscoroutinefunction(summarize):
        return "its `summarize` is not `async def`"
    return None


def collect_strategies(plugins: PluginHost) -> dict[str, CompactionStrategy]:
    """Every valid strategy by name; an invalid one is reported and skipped.

    Raises `DuplicateStrategy` naming both plugins when two register the same name.
    """
    strategies: dict[str, CompactionStrategy] = {}
    owners: dict[str, str] = {}
    for plugin_name, item in plugins.collect(hookspecs.rho_register_compaction_strategies):
        problem = _problem(item)
        if problem is not None:
            plugins.report(
                f"plugin '{plugin_name}' returned {type(item).__name__} from {HOOK}, but "
                f"{problem} (ignored)"
            )
            continue
        name = item.name
        if name in strategies:
            raise DuplicateStrategy(
                f"compaction strategy '{name}' is registered by both plugin "
                f"'{owners[name]}' and plugin '{plugin_name}'; disable one of them with "
                '[plugins] disabled = ["<name>"]'
            )
        strategies[name] = item
        owners[name] = plugin_name
    return strategies


__all__ = ["HOOK", "DuplicateStrategy", "collect_strategies"]
