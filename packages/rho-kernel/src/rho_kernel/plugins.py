"""Plugin discovery and hook calling: built-ins first, then the `rho` entry-point group."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, overload

import pluggy

from rho_kernel import builtins, diagnostics, hookspecs
from rho_kernel.builtins import DEFAULT_PLUGINS
from rho_kernel.encoding import scrub_surrogates
from rho_kernel.entry_point_cache import FoundEntryPoint, discover
from rho_kernel.hookcall import (
    Attribution,
    Chain,
    guard_plugin,
    guards_registered,
    recorded,
)
from rho_kernel.stash import Stash

if TYPE_CHECKING:
    from rho_kernel.tools.intercept import Block, Intercepted

hookimpl = pluggy.HookimplMarker("rho")

KERNEL_PLUGIN_NAME = "rho-kernel"

#: Set to a non-empty value to load no entry-point plugins (built-ins still load).
DISABLE_AUTOLOAD_ENV = "RHO_DISABLE_PLUGIN_AUTOLOAD"
#: When set, names the only entry-point plugins to load (entry-point or distribution names,
#: separated by commas or spaces; empty: none); built-ins still load. Unset: every one loads.
ONLY_ENV = "RHO_PLUGINS"
#: Set to a non-empty value to trace every hook call to stderr.
TRACE_ENV = "RHO_TRACE_PLUGINS"

ENTRY_POINT_GROUP = "rho"

_Args = ParamSpec("_Args")
_Item = TypeVar("_Item")
_Answer = TypeVar("_Answer")


def _hook_name(hook: str | Callable[..., Any], positional: tuple[Any, ...]) -> str:
    """The name of `hook` (a name, or its spec in `rho_kernel.hookspecs`); hook arguments are
    passed by keyword, as pluggy requires."""
    if positional:
        raise TypeError("hook arguments are passed by keyword")
    return hook if isinstance(hook, str) else hook.__name__


@dataclass(slots=True)
class PluginInfo:
    """A loaded plugin: its registered name, where it comes from, and what it implements.

    `distribution` is the installed package that provides it (None for an object registered
    directly, as tests do); `tools` and `rpc_methods` are filled by the host's owner once
    the contributions are collected (`PluginHost.credit`).
    """

    name: str
    version: str | None
    hooks: list[str] = field(default_factory=list)
    distribution: str | None = None
    tools: list[str] = field(default_factory=list)
    rpc_methods: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PluginFailure:
    """A plugin that could not be loaded: its name, its distribution and why."""

    name: str
    problem: str
    distribution: str | None = None
    version: str | None = None


class PluginHost:
    """Owns the pluggy manager, loads plugins, and calls hooks with per-plugin attribution."""

    def __init__(
        self,
        *,
        disabled: Iterable[str] = (),
        autoload: bool | None = None,
        only: Iterable[str] | None = None,
        report: Callable[[str], None] = diagnostics.warn,
        entry_point_cache: Path | None = None,
    ) -> None:
        self.pm = pluggy.PluginManager("rho")
        self.pm.add_hookspecs(hookspecs)
        self.disabled = set(disabled)
        self.autoload = (not os.environ.get(DISABLE_AUTOLOAD_ENV)) if autoload is None else autoload
        #: The entry-point or distribution names (normalized) that may load; None: any.
        self.only = _allow_list() if only is None else frozenset(map(_normalized, only))
        self.report = report
        #: Where the entry points found are remembered between starts (None: read each time).
        self.entry_point_cache = entry_point_cache
        self.versions: dict[str, str | None] = {}
        self.failures: list[PluginFailure] = []
        #: plugin name → distribution name, for the plugins whose distribution is known.
        self.distributions: dict[str, str | None] = {}
        #: plugin name → import path, to find the distribution of a module loaded by path.
        self._module_paths: dict[str, str] = {}
        #: plugin name → kind ("tools", "rpc_methods") → names it contributed and kept.
        self.contributions: dict[str, dict[str, list[str]]] = {}
        self._stashes: dict[str | None, Stash] = {}
        #: plugin name → the object registered under it (pluggy holds its guarded stand-in).
        self._originals: dict[str, object] = {}
        if os.environ.get(TRACE_ENV):
            self.pm.trace.root.setwriter(_trace_writer())
            self.pm.enable_tracing()

    # ── loading ─────────────────────────────────────────────────────────────

    def register(
        self,
        plugin: object,
        name: str,
        version: str | None = None,
        distribution: str | None = None,
    ) -> bool:
        """Register a plugin object or module; False (and a report) when it is rejected.

        `distribution` names the installed package that provides it (see `describe`).
        """
        if name in self.disabled or self.pm.has_plugin(name):
            return False
        self.distributions.setdefault(name, distribution)
        self.versions.setdefault(name, version)
        twin = next((other for other, held in self._originals.items() if held is plugin), None)
        if twin is not None:
            self._fail(name, f"rejected: the same plugin is already registered as '{twin}'")
            return False
        try:
            guarded = guard_plugin(self.pm, plugin, name, lambda message: self.report(message))
            self.pm.register(guarded, name=name)
            self.pm.check_pending()
        except Exception as exc:  # pluggy raises PluginValidationError or ValueError
            if self.pm.get_plugin(name) is not None:
                self.pm.unregister(name=name)
            self._fail(name, f"rejected: {exc}")
            return False
        guards_registered(self.pm, guarded)
        self._originals[name] = plugin
        return True

    def load_defaults(self, extra: Iterable[tuple[str, str]] = ()) -> None:
        """Register the kernel's built-ins (and `extra` (name, module) pairs) by import path.

        The built-ins' version is rho-kernel's, read from its metadata when first asked
        (`origin`), not at startup."""
        self.register(builtins, KERNEL_PLUGIN_NAME, None, KERNEL_PLUGIN_NAME)
        for name, module_path in DEFAULT_PLUGINS:
            if name not in self.disabled:
                self._register_module(name, module_path, None, KERNEL_PLUGIN_NAME)
        for name, module_path in extra:
            if name not in self.disabled:
                self._module_paths.setdefault(name, module_path)
                self._register_module(name, module_path)

    def _register_module(
        self,
        name: str,
        module_path: str,
        version: str | None = None,
        distribution: str | None = None,
    ) -> None:
        self.distributions.setdefault(name, distribution)
        try:
            module = importlib.import_module(module_path)
        except Exception as exc:
            self._fail(name, f"failed to import {module_path}: {type(exc).__name__}: {exc}")
            return
        self.register(module, name, version or _version_of(module_path), distribution)

    def load_entrypoints(self) -> None:
        """Register every `rho` entry point, in name order so that which plugin loads first
        (and keeps a contested tool or method name) never depends on the file system.

        With an allow-list (`only`, `RHO_PLUGINS`) only the entry points it names, by their
        own name or their distribution's, load. One that fails to import is reported and
        skipped. The entry points come from `entry_point_cache` while the environment is
        unchanged (see `rho_kernel.entry_point_cache`); when one of those no longer imports,
        the installed metadata is read again and decides.
        """
        if not self.autoload:
            return
        found = discover(ENTRY_POINT_GROUP, self.entry_point_cache)
        if not self._load_found(found, remembered=self.entry_point_cache is not None):
            self._load_found(discover(ENTRY_POINT_GROUP, self.entry_point_cache, fresh=True))

    def _load_found(self, found: list[FoundEntryPoint], *, remembered: bool = False) -> bool:
        """Register the plugins of `found`; False when `remembered` (possibly stale) entry
        points stopped at one that fails to import, before it was reported."""
        for point in sorted(found, key=lambda point: point.name):
            if point.name in self.disabled or self.pm.has_plugin(point.name):
                continue
            if not self._allowed(point.name, point.distribution):
                continue
            try:
                plugin = point.load()
            except Exception as exc:
                if remembered:
                    return False
                self.distributions[point.name] = point.distribution
                self.versions[point.name] = point.version
                self._fail(
                    point.name, f"failed to import {point.value}: {type(exc).__name__}: {exc}"
                )
                continue
            self.distributions[point.name] = point.distribution
            self.versions[point.name] = point.version
            self.register(plugin, point.name, point.version, point.distribution)
        return True

    def not_loading(self) -> str | None:
        """Why installed (entry-point) plugins are not loaded and how to load them, for a
        message; None when they are."""
        if self.autoload and self.only is None:
            return None
        if self.autoload:
            return f"{ONLY_ENV} is set and only the plugins it names load; add it there"
        if os.environ.get(DISABLE_AUTOLOAD_ENV):
            return f"{DISABLE_AUTOLOAD_ENV} is set; unset it to load installed plugins"
        return "this rho was started without loading installed plugins"

    def _allowed(self, entry: str, distribution: str | None) -> bool:
        """Whether the allow-list (if any) names this entry point or its distribution."""
        if self.only is None:
            return True
        names = {_normalized(entry)} | ({_normalized(distribution)} if distribution else set())
        return bool(names & self.only)

    def _fail(self, name: str, problem: str) -> None:
        distribution, version = self.origin(name)
        self.failures.append(PluginFailure(name, problem, distribution, version))
        self.report(f"{self.describe(name)} skipped: {problem}")

    # ── attribution ─────────────────────────────────────────────────────────

    def origin(self, name: str) -> tuple[str | None, str | None]:
        """The distribution that provides plugin `name` and its version (None when unknown).

        A plugin registered by import path is looked up in the installed distributions' file
        lists only when asked (it is slow, and never needed on the startup path).
        """
        distribution = self.distributions.get(name)
        version = self.versions.get(name)
        if distribution is None and name in self._module_paths:
            distribution = _distribution_of_module(self._module_paths.pop(name))
            self.distributions[name] = distribution
        if distribution is not None and version is None:
            version = _installed_version(distribution)
            self.versions[name] = version
        return distribution, version

    def describe(self, name: str) -> str:
        """How messages name a plugin: `plugin 'acme' (acme-tools 1.2)`."""
        distribution, version = self.origin(name)
        if distribution is None:
            return f"plugin '{name}'"
        return f"plugin '{name}' ({distribution}{f' {version}' if version else ''})"

    def rank(self, name: str) -> int:
        """The position of plugin `name` in load order (unknown names sort last)."""
        for index, (registered, _) in enumerate(self.pm.list_name_plugin()):
            if registered == name:
                return index
        return sys.maxsize

    def credit(self, name: str, kind: str, item: str) -> None:
        """Record that plugin `name` contributed `item` of `kind` ("tools", "rpc_methods")."""
        self.contributions.setdefault(name, {}).setdefault(kind, []).append(item)

    def uncredit(self, kind: str, item: str) -> None:
        """Forget a contribution that was dropped after all (a tool whose schema is broken)."""
        for kinds in self.contributions.values():
            if item in kinds.get(kind, ()):
                kinds[kind].remove(item)

    # ── calling ─────────────────────────────────────────────────────────────

    def call(self, hook: str | Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Call a hook through pluggy and return what pluggy would: a `firstresult` hook's
        first non-None answer, any other hook's list of non-None results, as the hook's
        wrappers leave it. Each implementation that raises is reported and skipped.

        `hook` is the hook's spec (`hookspecs.rho_startup`), or its name."""
        return self._call(_hook_name(hook, args), kwargs)[0]

    @overload
    def call_each(
        self,
        hook: Callable[_Args, _Answer],
        /,
        *args: _Args.args,
        **kwargs: _Args.kwargs,
    ) -> list[tuple[str, _Answer]]: ...
    @overload
    def call_each(self, hook: str, /, **kwargs: Any) -> list[tuple[str, Any]]: ...
    def call_each(
        self, hook: str | Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> list[tuple[str, Any]]:
        """Call every implementation of a hook: `[(plugin_name, result), ...]`.

        Implementations run in pluggy's order (last registered first, `tryfirst`/`trylast`
        honoured) inside the hook's wrappers. One that raises is reported and skipped; None
        results are dropped. A value a wrapper adds is attributed to the wrapper's plugin.

        Given the hook's spec (`hookspecs.rho_startup`) rather than its name, a type checker
        checks the arguments and knows the results' type.
        """
        return self._pairs(_hook_name(hook, args), kwargs)[0]

    def _pairs(
        self, hook_name: str, kwargs: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], Attribution]:
        result, attribution = self._call(hook_name, kwargs)
        if not isinstance(result, list):  # a firstresult hook: its one answer
            result = [result]
        pairs = [(name, value) for name, value in attribution.pairs(result) if value is not None]
        return pairs, attribution

    def _call(self, hook_name: str, kwargs: dict[str, Any]) -> tuple[Any, Attribution]:
        caller = getattr(self.pm.hook, hook_name)
        return recorded(hook_name, kwargs, _CHAINS.get(hook_name), lambda: caller(**kwargs))

    @overload
    def collect(
        self,
        hook: Callable[_Args, Sequence[_Item] | None],
        /,
        *args: _Args.args,
        **kwargs: _Args.kwargs,
    ) -> list[tuple[str, _Item]]: ...
    @overload
    def collect(self, hook: str, /, **kwargs: Any) -> list[tuple[str, Any]]: ...
    def collect(
        self, hook: str | Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> list[tuple[str, Any]]:
        """Flatten list-returning registration hooks: `[(plugin_name, item), ...]`. Given
        the hook's spec (`hookspecs.rho_register_tools`), a type checker checks the
        arguments and knows the items' type.

        An item stays attributed to the plugin that returned it even when a wrapper of the
        hook rebuilt the lists; an item a wrapper adds is attributed to the wrapper's plugin.
        """
        hook_name = _hook_name(hook, args)
        items: list[tuple[str, Any]] = []
        pairs, attribution = self._pairs(hook_name, kwargs)
        for plugin_name, result in pairs:
            if isinstance(result, (list, tuple)):
                items.extend((attribution.item_owner(item) or plugin_name, item) for item in result)
            else:
                self.report(
                    f"{self.describe(plugin_name)} returned {type(result).__name__} from "
                    f"{hook_name}; expected a list (ignored)"
                )
        return items

    @overload
    def first(
        self,
        hook: Callable[_Args, _Answer | None],
        /,
        *args: _Args.args,
        **kwargs: _Args.kwargs,
    ) -> _Answer | None: ...
    @overload
    def first(self, hook: str, /, **kwargs: Any) -> Any: ...
    def first(self, hook: str | Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Call a firstresult hook: the first non-None answer; later implementations are
        not called. A raising implementation is reported and skipped. Given the hook's spec
        (`hookspecs.rho_approval_gate`), a type checker checks the arguments and the answer."""
        return self._call(_hook_name(hook, args), kwargs)[0]

    async def intercept_async(self, call: Any, arguments: dict[str, Any], tool: Any) -> Any:
        """`intercept` without the permission: the `Block`, or the (possibly rewritten)
        arguments."""
        from rho_kernel.tools.intercept import Intercepted

        outcome = await self.intercept(call, arguments, tool)
        return outcome.arguments if isinstance(outcome, Intercepted) else outcome

    async def intercept(
        self, call: Any, arguments: dict[str, Any], tool: Any
    ) -> Block | Intercepted:
        """Run `rho_before_tool_call` as the agent loop does: the synchronous answers first
        (the first `Block` wins, `Rewrite`s chain), then each awaitable answer in turn (a
        `Block` ends the call, a `Rewrite` replaces the arguments); the strongest
        `Permission` is kept. Returns the `Block`, or what the call came to. An awaitable
        that raises is reported and skipped."""
        from rho_kernel.tools.intercept import Block, Intercepted

        outcomes = self.call_each(
            hookspecs.rho_before_tool_call, call=call, arguments=arguments, tool=tool
        )
        pending: list[tuple[str, Any]] = []
        held = Intercepted(arguments)
        for plugin, outcome in outcomes:
            if inspect.isawaitable(outcome):
                pending.append((plugin, outcome))
                continue
            if isinstance(outcome, Block):
                self._drop_all(pending, "rho_before_tool_call", quiet=True)
                return outcome
            held = held.answered(plugin, outcome)
        for index, (plugin, awaitable) in enumerate(pending):
            outcome = await self._settle(plugin, "rho_before_tool_call", awaitable)
            if isinstance(outcome, Block):
                self._drop_all(pending[index + 1 :], "rho_before_tool_call", quiet=True)
                return outcome
            held = held.answered(plugin, outcome)
        return held

    def after_tool_call(self, call: Any, result: Any, *, awaitables: str = "report") -> Any:
        """Run `rho_after_tool_call` (its synchronous answers only): each returned
        `ToolResult` replaces the result. Awaitable answers are dropped: reported, or just
        closed with `awaitables="close"` (the loop after an abort)."""
        from rho_kernel.tools.base import ToolResult

        for plugin, outcome in self.call_each(
            hookspecs.rho_after_tool_call, call=call, result=result
        ):
            if inspect.isawaitable(outcome):
                quiet = awaitables == "close"
                self._drop_all([(plugin, outcome)], "rho_after_tool_call", quiet=quiet)
            elif isinstance(outcome, ToolResult):
                result = outcome
        return result

    async def after_tool_call_async(self, call: Any, result: Any) -> Any:
        """Run `rho_after_tool_call` as the agent loop does: the synchronous answers, then
        each awaitable one in turn; every `ToolResult` replaces the result."""
        from rho_kernel.tools.base import ToolResult

        pending: list[tuple[str, Any]] = []
        for plugin, outcome in self.call_each(
            hookspecs.rho_after_tool_call, call=call, result=result
        ):
            if inspect.isawaitable(outcome):
                pending.append((plugin, outcome))
            elif isinstance(outcome, ToolResult):
                result = outcome
        for plugin, awaitable in pending:
            outcome = await self._settle(plugin, "rho_after_tool_call", awaitable)
            if isinstance(outcome, ToolResult):
                result = outcome
        return result

    async def _settle(self, plugin: str, hook_name: str, awaitable: Any) -> Any:
        """Await a hook's awaitable answer; one that raises is reported (None)."""
        try:
            return await awaitable
        except Exception as exc:
            self.report(f"plugin '{plugin}' failed in {hook_name}: {exc}")
            return None

    def _drop_all(
        self, pending: list[tuple[str, Any]], hook_name: str, *, quiet: bool = False
    ) -> None:
        """Close awaitables that will not be awaited (a Block came first, or a synchronous
        caller), so they never warn as "never awaited"."""
        for plugin, awaitable in pending:
            close = getattr(awaitable, "close", None) or getattr(awaitable, "cancel", None)
            if close is not None:
                close()
            if not quiet:
                self.report(
                    f"plugin '{plugin}' answered {hook_name} with an awaitable where only a "
                    "synchronous answer is read (ignored)"
                )

    # ── state ───────────────────────────────────────────────────────────────

    def stash(self, plugin_name: str | None = None) -> Stash:
        """State that lasts as long as the process (created on first use): a plugin's own
        `Stash` (its tools receive it as `ToolContext.stash`), or without a name the one
        every plugin shares (`Runtime.stash`), where each keeps its entries under keys of
        its own (a `StashKey`)."""
        return self._stashes.setdefault(plugin_name, Stash())

    # ── introspection ───────────────────────────────────────────────────────

    def plugins(self) -> list[PluginInfo]:
        """Every registered plugin in load order: origin, implemented hooks, contributions."""
        infos: list[PluginInfo] = []
        for name, plugin in self.pm.list_name_plugin():
            hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ())
            distribution, version = self.origin(name)
            given = self.contributions.get(name, {})
            infos.append(
                PluginInfo(
                    name=name,
                    version=version,
                    hooks=hooks,
                    distribution=distribution,
                    tools=list(given.get("tools", ())),
                    rpc_methods=list(given.get("rpc_methods", ())),
                )
            )
        return infos


def _chain_before_tool_call(outcome: Any, kwargs: dict[str, Any]) -> bool:
    """A `Block` ends the call; a `Rewrite` is what later implementations receive."""
    from rho_kernel.tools.intercept import Block, apply_interception

    arguments = apply_interception(kwargs["arguments"], outcome)
    if isinstance(arguments, Block):
        return True
    kwargs["arguments"] = arguments
    return False


def _chain_after_tool_call(outcome: Any, kwargs: dict[str, Any]) -> bool:
    """A returned `ToolResult` is the result later implementations receive."""
    from rho_kernel.tools.base import ToolResult

    if isinstance(outcome, ToolResult):
        kwargs["result"] = outcome
    return False


#: Hooks whose implementations see what earlier ones returned (see their hookspecs).
_CHAINS: dict[str, Chain] = {
    "rho_before_tool_call": _chain_before_tool_call,
    "rho_after_tool_call": _chain_after_tool_call,
}

#: A traced line is cut here: arguments and results can be whole files or configs.
TRACE_LINE_LIMIT = 300


def _trace_writer() -> Callable[[str], None]:
    """Write pluggy's trace lines to stderr as `rho: trace: …`, secrets redacted, cut."""
    from rho_kernel.security.redaction import Redactor

    redactor = Redactor()

    def write(text: str) -> None:
        for line in text.splitlines():
            line = redactor.redact(scrub_surrogates(line))
            if len(line) > TRACE_LINE_LIMIT:
                line = line[: TRACE_LINE_LIMIT - 1] + "…"
            diagnostics.info(f"trace: {line}")

    return write


def _version_of(module_path: str) -> str | None:
    """The `__version__` the module's top-level package already holds, or None: a lazy one
    (read from metadata on first use, see `rho_kernel.lazy_exports`) is left for `origin`."""
    top = module_path.split(".", 1)[0]
    module = sys.modules.get(top)
    version = vars(module).get("__version__") if module is not None else None
    return version if isinstance(version, str) else None


def installed_distribution(name: str) -> bool:
    """Whether the distribution `name` is installed and provides a `rho` entry point (found
    without loading any plugin)."""
    from importlib.metadata import entry_points

    wanted = _normalized(name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found = _metadata_name(ep.dist)
        if found is not None and _normalized(found) == wanted:
            return True
    return False


def _allow_list() -> frozenset[str] | None:
    """The names `RHO_PLUGINS` lists (normalized), or None when it is not set."""
    value = os.environ.get(ONLY_ENV)
    if value is None:
        return None
    return frozenset(_normalized(name) for name in re.split(r"[\s,]+", value) if name)


def _normalized(name: str) -> str:
    """A distribution name as packaging compares them: case and `-_.` runs folded."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _metadata_name(dist: Any) -> str | None:
    """A distribution's name as its metadata spells it; None when missing or not text."""
    try:
        name = dist.name if dist is not None else None
    except Exception:  # a broken METADATA file must not stop startup
        return None
    return name if isinstance(name, str) and name else None


def _distribution_of_module(module_path: str) -> str | None:
    """The installed distribution that ships `module_path`: the one declaring it as a `rho`
    entry point, else the one whose files hold its top-level package."""
    from importlib.metadata import entry_points, packages_distributions

    try:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.value == module_path and (name := _metadata_name(ep.dist)) is not None:
                return name
        names = packages_distributions().get(module_path.split(".", 1)[0], [])
    except Exception:
        return None
    return names[0] if names else None


def _installed_version(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except (PackageNotFoundError, ValueError):
        return None


__all__ = ["DEFAULT_PLUGINS", "PluginFailure", "PluginHost", "PluginInfo", "hookimpl"]
