"""How a hook is called: through pluggy, with each plugin's implementations isolated and
attributed by guards put around them when the plugin is registered.

`PluginHost` registers a plugin with pluggy as a `GuardedPlugin`: an object holding, for
each hook implementation the plugin declares, a guard that calls the original function.
pluggy reads the guard's marker and argument names from the original (the guard copies its
marker and wraps it), so it calls hooks exactly as it defines them: the call order (last
registered first, `tryfirst`/`trylast`), a `firstresult` hook stops at the first non-None
answer, `wrapper=True` and old-style `hookwrapper=True` implementations wrap the whole call,
and tracing (`RHO_TRACE_PLUGINS`) and `add_hookcall_monitoring` see every call.

What the guards add, because one plugin must not break the others: an implementation or
wrapper that raises is reported and left out (it answers None, and a failed wrapper passes
the result on unchanged), and in a call the host makes (`CallRecord`) every value is
remembered with the plugin that gave it, so the host can attribute each contribution. A
*chained* hook (see `Chain`) lets an implementation's result change the arguments later
implementations receive, or end the call.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import types
from collections.abc import Callable, Generator, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pluggy

Report = Callable[[str], None]
#: `chain(result, kwargs) -> stop`: applied after each implementation of a chained hook that
#: returned a value; it may update `kwargs` (what later implementations receive) in place and
#: returns True to call no further implementation.
Chain = Callable[[Any, dict[str, Any]], bool]

T = TypeVar("T")


class Attribution:
    """Which plugin gave each value of one hook call (by identity, in call order)."""

    def __init__(self) -> None:
        self._given: list[tuple[str, Any]] = []

    def add(self, plugin: str, value: Any) -> None:
        """Record that `plugin` gave `value`."""
        self._given.append((plugin, value))

    def pairs(self, values: Iterable[Any]) -> list[tuple[str, Any]]:
        """`[(plugin, value), ...]` for `values` (a call's result); each recorded gift is
        matched once, so two plugins giving the same object keep their own entries."""
        used: set[int] = set()
        pairs: list[tuple[str, Any]] = []
        for value in values:
            owner = "<unknown>"
            for index, (plugin, given) in enumerate(self._given):
                if index not in used and given is value:
                    used.add(index)
                    owner = plugin
                    break
            pairs.append((owner, value))
        return pairs

    def item_owner(self, item: Any) -> str | None:
        """The plugin whose returned list (or tuple) first held `item`, or None: a wrapper
        that filters or reorders lists does not become the owner of what it passes on."""
        for plugin, given in self._given:
            if isinstance(given, (list, tuple)) and any(item is held for held in given):
                return plugin
        return None


@dataclass(slots=True)
class CallRecord:
    """One hook call the host makes, as its guards see it: who gave what, and for a chained
    hook the arguments later implementations receive and whether the call has ended."""

    hook_name: str
    arguments: dict[str, Any]
    chain: Chain | None = None
    attribution: Attribution = field(default_factory=Attribution)
    ended: bool = False

    def passed(self, argnames: tuple[str, ...], args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The positional arguments an implementation receives: pluggy's, with the chained
        ones as the implementations before it left them."""
        if self.chain is None or len(argnames) != len(args):
            return args
        pairs = zip(argnames, args, strict=True)
        return tuple(self.arguments.get(name, arg) for name, arg in pairs)

    def answered(self, plugin: str, value: Any) -> None:
        """Remember `value` as `plugin`'s and, for a chained hook, apply it."""
        self.attribution.add(plugin, value)
        if self.chain is not None and self.chain(value, self.arguments):
            self.ended = True


#: The host call the running implementations belong to (None while an implementation runs,
#: so that hook calls it makes are their own).
_CURRENT: ContextVar[CallRecord | None] = ContextVar("rho_hook_call", default=None)


def recorded(
    hook_name: str, arguments: dict[str, Any], chain: Chain | None, call: Callable[[], T]
) -> tuple[T, Attribution]:
    """Run `call` (one call of `hook_name` through pluggy with `arguments`) under a fresh
    `CallRecord`, and return its result with its attribution."""
    record = CallRecord(hook_name, dict(arguments), chain)
    token = _CURRENT.set(record)
    try:
        result = call()
    finally:
        _CURRENT.reset(token)
    return result, record.attribution


def _record_of(hook_name: str) -> CallRecord | None:
    record = _CURRENT.get()
    return record if record is not None and record.hook_name == hook_name else None


class _Alone:
    """Run plugin code outside any host call (hook calls it makes are its own)."""

    def __enter__(self) -> None:
        self._token = _CURRENT.set(None)

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)


class GuardedPlugin(types.ModuleType):
    """What pluggy registers for a plugin: a guard per hook implementation of `original`.

    A module, because pluggy looks a module's attributes up the cheapest way, and this one
    holds nothing but the guards."""

    def __init__(self, original: object, name: str) -> None:
        super().__init__(f"rho guarded plugin {name}")
        self._rho_original = original

    def __repr__(self) -> str:
        return repr(self._rho_original)


@dataclass(slots=True)
class _Guard:
    """One implementation's guard: whose it is, for which hook, and how pluggy calls it."""

    report: Report
    plugin: str
    hook_name: str
    firstresult: bool
    #: The implementation's argument names, as pluggy passes them (filled once registered).
    argnames: tuple[str, ...] = ()

    def failed(self, exc: BaseException, *, wrapper: bool = False) -> None:
        role = " (wrapper)" if wrapper else ""
        self.report(f"plugin '{self.plugin}' failed in {self.hook_name}{role}: {exc}")

    def kept(self, new: Any) -> bool:
        """Whether a wrapper's result can stand: a list hook's result stays a list."""
        if self.firstresult or isinstance(new, list):
            return True
        self.report(
            f"plugin '{self.plugin}' returned {type(new).__name__} from its wrapper "
            f"of {self.hook_name}; expected a list (ignored)"
        )
        return False

    def added(self, record: CallRecord | None, before: Any, new: Any) -> None:
        """Attribute to the wrapper's plugin the values it added to the result."""
        if record is None:
            return
        old = before if isinstance(before, list) else [before]
        for value in new if isinstance(new, list) else [new]:
            if value is not None and not any(value is seen for seen in old):
                record.attribution.add(self.plugin, value)


def guard_plugin(
    pm: pluggy.PluginManager, plugin: object, name: str, report: Report
) -> GuardedPlugin:
    """A `GuardedPlugin` for `plugin` (registered as `name`): each attribute pluggy would
    take as a hook implementation, guarded. Register it, then call `guards_registered`."""
    guarded = GuardedPlugin(plugin, name)
    for attribute in _candidates(plugin, f"{pm.project_name}_impl"):
        opts = pm.parse_hookimpl_opts(plugin, attribute)
        if opts is None:
            continue
        function = getattr(plugin, attribute)
        hook_name = opts.get("specname") or attribute
        caller = getattr(pm.hook, hook_name, None)
        spec = caller.spec if caller is not None else None
        state = _Guard(report, name, hook_name, bool(spec and spec.opts.get("firstresult")))
        guard = _guarded(function, state, opts)
        setattr(guard, f"{pm.project_name}_impl", opts)
        setattr(guarded, attribute, guard)
    return guarded


def _candidates(plugin: object, marker: str) -> Iterable[str]:
    """The attributes of `plugin` that may be hook implementations: for a module (most
    plugins), its functions that carry the marker, found in its namespace without the cost
    of looking each attribute up as pluggy does; for any other object, every attribute."""
    if not isinstance(plugin, types.ModuleType):
        return dir(plugin)
    return [
        name
        for name, value in vars(plugin).items()
        if isinstance(value, (types.FunctionType, staticmethod, classmethod))
        and getattr(value, marker, None) is not None
    ]


def guards_registered(pm: pluggy.PluginManager, guarded: GuardedPlugin) -> None:
    """Tell `guarded`'s guards the argument names pluggy found for them (now registered)."""
    for caller in pm.get_hookcallers(guarded) or ():
        for impl in caller.get_hookimpls():
            state = getattr(impl.function, "_rho_guard", None)
            if impl.plugin is guarded and isinstance(state, _Guard):
                state.argnames = impl.argnames


def _guarded(function: Callable[..., Any], state: _Guard, opts: Any) -> Callable[..., Any]:
    """The guard for one implementation: a generator function for a wrapper that is one (a
    wrapper that is not gets a plain guard, which pluggy rejects as it would the original)."""
    make = _implementation_guard
    if (opts.get("wrapper") or opts.get("hookwrapper")) and inspect.isgeneratorfunction(function):
        make = _old_style_guard if opts.get("hookwrapper") else _wrapper_guard
    guard = functools.wraps(function)(make(function, state))
    guard._rho_guard = state  # type: ignore[attr-defined]
    return guard


def _implementation_guard(function: Callable[..., Any], state: _Guard) -> Callable[..., Any]:
    def guard(*args: Any) -> Any:
        record = _record_of(state.hook_name)
        if record is not None and record.ended:
            return None
        if record is not None:
            args = record.passed(state.argnames, args)
        try:
            with _Alone():
                value = function(*args)
        except Exception as exc:
            state.failed(exc)
            return None
        if value is not None and record is not None:
            record.answered(state.plugin, value)
        return value

    return guard


def _enter(function: Callable[..., Any], state: _Guard, args: tuple[Any, ...]) -> Any:
    """Run a wrapper up to its `yield`: its generator, or None (reported) when it fails."""
    try:
        with _Alone():
            inner = function(*args)
            next(inner)
    except StopIteration:
        state.failed(RuntimeError("the wrapper did not yield"), wrapper=True)
        return None
    except Exception as exc:
        state.failed(exc, wrapper=True)
        return None
    return inner


def _resume(inner: Generator[Any, Any, Any], sent: Any, state: _Guard) -> tuple[bool, Any]:
    """Resume a wrapper after its `yield`: (True, what it returned), or (False, None) when
    it raised or yielded again (reported)."""
    try:
        with _Alone():
            inner.send(sent)
    except StopIteration as stop:
        return True, stop.value
    except Exception as exc:
        state.failed(exc, wrapper=True)
        return False, None
    inner.close()
    state.failed(RuntimeError("the wrapper yielded more than once"), wrapper=True)
    return False, None


def _wrapper_guard(
    function: Callable[..., Any], state: _Guard
) -> Callable[..., Generator[None, Any, Any]]:
    def guard(*args: Any) -> Generator[None, Any, Any]:
        record = _record_of(state.hook_name)
        inner = _enter(function, state, args)
        if inner is None:
            return (yield)
        try:
            result = yield
        except BaseException as exc:  # the caller's error (pluggy.HookCallError): pass it in
            try:
                inner.throw(exc)
            except StopIteration as stop:
                return stop.value
            inner.close()
            raise
        finished, new = _resume(inner, result, state)
        if not finished or not state.kept(new):
            return result
        state.added(record, result, new)
        return new

    return guard


def _old_style_guard(
    function: Callable[..., Any], state: _Guard
) -> Callable[..., Generator[None, Any, None]]:
    def guard(*args: Any) -> Generator[None, Any, None]:
        record = _record_of(state.hook_name)
        inner = _enter(function, state, args)
        if inner is None:
            yield
            return
        outcome: pluggy.Result[Any] = yield
        if outcome.exception is not None:  # the caller's error: the wrapper sees it as is
            with contextlib.suppress(StopIteration):
                inner.send(outcome)
            return
        before = outcome.get_result()
        finished, _ = _resume(inner, outcome, state)
        if finished and outcome.exception is not None:
            state.failed(outcome.exception, wrapper=True)
            finished = False
        if not finished or not state.kept(outcome.get_result()):
            outcome.force_result(before)
            return
        state.added(record, before, outcome.get_result())

    return guard


__all__ = [
    "Attribution",
    "CallRecord",
    "Chain",
    "GuardedPlugin",
    "guard_plugin",
    "guards_registered",
    "recorded",
]
