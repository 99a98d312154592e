"""Plugin discovery and hook calling: built-ins first, then the `rho` entry-point group."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy

from rho_kernel import builtins, diagnostics, hookspecs
from rho_kernel.builtins import DEFAULT_PLUGINS

hookimpl = pluggy.HookimplMarker("rho")

KERNEL_PLUGIN_NAME = "rho-kernel"

#: Set to a non-empty value to load no entry-point plugins (built-ins still load).
DISABLE_AUTOLOAD_ENV = "RHO_DISABLE_PLUGIN_AUTOLOAD"
#: Set to a non-empty value to trace every hook call to stderr.
TRACE_ENV = "RHO_TRACE_PLUGINS"

ENTRY_POINT_GROUP = "rho"


@dataclass(slots=True)
class PluginInfo:
    """A loaded plugin: its registered name, distribution version and the hooks it implements."""

    name: str
    version: str | None
    hooks: list[str] = field(default_factory=list)


class PluginHost:
    """Owns the pluggy manager, loads plugins, and calls hooks with per-plugin attribution."""

    def __init__(
        self,
        *,
        disabled: Iterable[str] = (),
        autoload: bool | None = None,
        report: Callable[[str], None] = diagnostics.warn,
    ) -> None:
        self.pm = pluggy.PluginManager("rho")
        self.pm.add_hookspecs(hookspecs)
        self.disabled = set(disabled)
        self.autoload = (not os.environ.get(DISABLE_AUTOLOAD_ENV)) if autoload is None else autoload
        self.report = report
        self.versions: dict[str, str | None] = {}
        self.failures: list[tuple[str, str]] = []
        if os.environ.get(TRACE_ENV):
            self.pm.trace.root.setwriter(lambda text: sys.stderr.write(text))
            self.pm.enable_tracing()

    # ── loading ─────────────────────────────────────────────────────────────

    def register(self, plugin: object, name: str, version: str | None = None) -> bool:
        """Register a plugin object or module; False (and a report) when it is rejected."""
        if name in self.disabled or self.pm.has_plugin(name):
            return False
        try:
            self.pm.register(plugin, name=name)
            self.pm.check_pending()
        except Exception as exc:  # pluggy raises PluginValidationError or ValueError
            if self.pm.get_plugin(name) is not None:
                self.pm.unregister(name=name)
            self._fail(name, f"rejected: {exc}")
            return False
        self.versions[name] = version
        return True

    def load_defaults(self, extra: Iterable[tuple[str, str]] = ()) -> None:
        """Register the kernel's built-ins (and `extra` (name, module) pairs) by import path."""
        self.register(builtins, KERNEL_PLUGIN_NAME, _version_of("rho_kernel"))
        for name, module_path in (*DEFAULT_PLUGINS, *extra):
            if name in self.disabled:
                continue
            try:
                module = importlib.import_module(module_path)
            except Exception as exc:
                self._fail(name, f"failed to import {module_path}: {exc}")
                continue
            self.register(module, name, _version_of(module_path))

    def load_entrypoints(self) -> None:
        """Register every `rho` entry point; one that fails to import is reported and skipped."""
        if not self.autoload:
            return
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in self.disabled or self.pm.has_plugin(ep.name):
                continue
            try:
                plugin = ep.load()
            except Exception as exc:
                self._fail(ep.name, f"failed to import {ep.value}: {type(exc).__name__}: {exc}")
                continue
            version = ep.dist.version if ep.dist is not None else None
            self.register(plugin, ep.name, version)

    def _fail(self, name: str, problem: str) -> None:
        self.failures.append((name, problem))
        self.report(f"plugin '{name}' skipped: {problem}")

    # ── calling ─────────────────────────────────────────────────────────────

    def call_each(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call every implementation of a hook on its own: `[(plugin_name, result), ...]`.

        Implementations run in pluggy's order (last registered first, `tryfirst`/`trylast`
        honoured). One that raises is reported and skipped; None results are dropped.
        """
        results: list[tuple[str, Any]] = []
        for impl, result in self._each(hook_name, kwargs):
            if result is not None:
                results.append((impl.plugin_name, result))
        return results

    def _each(self, hook_name: str, kwargs: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
        """Call each implementation in call order, passing only the arguments it names.

        Yields `(impl, result)`; one that raises is reported and skipped. Generator-based, so a
        caller may stop early (first Block) or update `kwargs` in place between calls, and
        later implementations see the update.
        """
        for impl in reversed(getattr(self.pm.hook, hook_name).get_hookimpls()):
            try:
                result = impl.function(**{n: kwargs[n] for n in impl.argnames if n in kwargs})
            except Exception as exc:
                self.report(f"plugin '{impl.plugin_name}' failed in {hook_name}: {exc}")
                continue
            yield impl, result

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Flatten list-returning registration hooks: `[(plugin_name, item), ...]`."""
        items: list[tuple[str, Any]] = []
        for plugin_name, result in self.call_each(hook_name, **kwargs):
            if isinstance(result, (list, tuple)):
                items.extend((plugin_name, item) for item in result)
            else:
                self.report(
                    f"plugin '{plugin_name}' returned {type(result).__name__} from "
                    f"{hook_name}; expected a list (ignored)"
                )
        return items

    def first(self, hook_name: str, **kwargs: Any) -> Any:
        """Call a firstresult hook; a raising implementation is reported and skipped."""
        for _, result in self.call_each(hook_name, **kwargs):
            return result
        return None

    def intercept(self, call: Any, arguments: dict[str, Any], tool: Any) -> Any:
        """Run `rho_before_tool_call`: the first `Block` wins, `Rewrite`s chain.

        Returns the `Block`, or the (possibly rewritten) arguments.
        """
        from rho_kernel.tools.intercept import Block, Rewrite

        kwargs: dict[str, Any] = {"call": call, "arguments": arguments, "tool": tool}
        for _, outcome in self._each("rho_before_tool_call", kwargs):
            if isinstance(outcome, Block):
                return outcome
            if isinstance(outcome, Rewrite):
                kwargs["arguments"] = dict(outcome.arguments)
        return kwargs["arguments"]

    def after_tool_call(self, call: Any, result: Any) -> Any:
        """Run `rho_after_tool_call`: each returned `ToolResult` replaces the result."""
        from rho_kernel.tools.base import ToolResult

        kwargs: dict[str, Any] = {"call": call, "result": result}
        for _, outcome in self._each("rho_after_tool_call", kwargs):
            if isinstance(outcome, ToolResult):
                kwargs["result"] = outcome
        return kwargs["result"]

    # ── introspection ───────────────────────────────────────────────────────

    def plugins(self) -> list[PluginInfo]:
        """Every registered plugin with its version and implemented hooks."""
        infos: list[PluginInfo] = []
        for name, plugin in self.pm.list_name_plugin():
            hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ())
            infos.append(PluginInfo(name=name, version=self.versions.get(name), hooks=hooks))
        return infos


def _version_of(module_path: str) -> str | None:
    top = module_path.split(".", 1)[0]
    module = sys.modules.get(top)
    return getattr(module, "__version__", None)


__all__ = ["DEFAULT_PLUGINS", "PluginHost", "PluginInfo", "hookimpl"]
