"""How a hook is called: pluggy's call loop, with each implementation isolated and attributed.

`PluginHost` installs `IsolatedCall` as its pluggy manager's call loop and calls every hook
through pluggy (`pm.hook.<name>(**kwargs)`), so hooks keep pluggy's meaning: the call order
(last registered first, `tryfirst`/`trylast`), a `firstresult` hook stops at the first
non-None answer, `wrapper=True` and old-style `hookwrapper=True` implementations wrap the
whole call, and tracing (`RHO_TRACE_PLUGINS`) and `add_hookcall_monitoring` see every call.

Two things differ from pluggy's own loop, because one plugin must not break the others: an
implementation or wrapper that raises is reported and left out (the call goes on without it,
and wrappers never see its exception), and every value is remembered with the plugin that
gave it, so the host can attribute each contribution. A *chained* hook (see `Chain`) lets an
implementation's result change the arguments later implementations receive, or end the call.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from contextvars import ContextVar
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

    def owner(self, value: Any) -> str | None:
        """The plugin that gave `value` (the first to give that object), or None."""
        return next((plugin for plugin, given in self._given if given is value), None)


#: Where the next call loop started on this context puts its attribution (None: nowhere).
_SINK: ContextVar[list[Attribution] | None] = ContextVar("rho_hook_attribution", default=None)


def attributed(call: Callable[[], T]) -> tuple[T, Attribution]:
    """Run `call` (one hook call through pluggy) and return its result with its attribution."""
    sink: list[Attribution] = []
    token = _SINK.set(sink)
    try:
        result = call()
    finally:
        _SINK.reset(token)
    return result, sink[0] if sink else Attribution()


class IsolatedCall:
    """A pluggy call loop (`PluginManager._inner_hookexec`) that isolates and attributes."""

    def __init__(self, report: Report, chains: Mapping[str, Chain] | None = None) -> None:
        self.report = report
        self.chains: dict[str, Chain] = dict(chains or {})

    def __call__(
        self,
        hook_name: str,
        hook_impls: Sequence[pluggy.HookImpl],
        caller_kwargs: Mapping[str, object],
        firstresult: bool,
    ) -> Any:
        sink = _SINK.get()
        token = _SINK.set(None)  # hook calls made by implementations are their own
        attribution = Attribution()
        try:
            result = self._run(hook_name, hook_impls, dict(caller_kwargs), firstresult, attribution)
        finally:
            _SINK.reset(token)
        if sink is not None:
            sink.append(attribution)
        return result

    def _run(
        self,
        hook_name: str,
        hook_impls: Sequence[pluggy.HookImpl],
        kwargs: dict[str, Any],
        firstresult: bool,
        attribution: Attribution,
    ) -> Any:
        """pluggy's loop: wrappers enter, implementations run, wrappers leave in reverse."""
        chain = self.chains.get(hook_name)
        teardowns: list[tuple[pluggy.HookImpl, Generator[Any, Any, Any]]] = []
        results: list[Any] = []
        for impl in reversed(hook_impls):
            arguments = _arguments(impl, kwargs)
            if impl.wrapper or impl.hookwrapper:
                generator = self._enter(hook_name, impl, arguments)
                if generator is not None:
                    teardowns.append((impl, generator))
                continue
            try:
                value = impl.function(**arguments)
            except Exception as exc:
                self._failed(impl, hook_name, exc)
                continue
            if value is None:
                continue
            results.append(value)
            attribution.add(impl.plugin_name, value)
            if firstresult or (chain is not None and chain(value, kwargs)):
                break
        result: Any = (results[0] if results else None) if firstresult else results
        for impl, generator in reversed(teardowns):
            result = self._leave(hook_name, impl, generator, result, firstresult, attribution)
        return result

    def _enter(
        self, hook_name: str, impl: pluggy.HookImpl, arguments: dict[str, Any]
    ) -> Generator[Any, Any, Any] | None:
        """Run a wrapper up to its `yield`; None (reported) when it fails or never yields."""
        try:
            generator = impl.function(**arguments)
            if not isinstance(generator, Generator):
                raise TypeError("a wrapper must be a generator function that yields once")
            next(generator)
        except StopIteration:
            self._failed(impl, hook_name, RuntimeError("the wrapper did not yield"))
            return None
        except Exception as exc:
            self._failed(impl, hook_name, exc)
            return None
        return generator

    def _leave(
        self,
        hook_name: str,
        impl: pluggy.HookImpl,
        generator: Generator[Any, Any, Any],
        result: Any,
        firstresult: bool,
        attribution: Attribution,
    ) -> Any:
        """Resume a wrapper with the result; what it returns (or forces) becomes the result,
        unless it fails, yields again or returns a non-list for a list hook (then reported)."""
        outcome = pluggy.Result(result, None) if impl.hookwrapper else None
        try:
            generator.send(outcome if outcome is not None else result)
        except StopIteration as stop:
            new = stop.value
        except Exception as exc:
            self._failed(impl, hook_name, exc)
            return result
        else:
            generator.close()
            self._failed(impl, hook_name, RuntimeError("the wrapper yielded more than once"))
            return result
        if outcome is not None:  # an old-style wrapper forces a result (or an exception)
            if outcome.exception is not None:
                self._failed(impl, hook_name, outcome.exception)
                return result
            new = outcome.get_result()
        if not firstresult and not isinstance(new, list):
            self.report(
                f"plugin '{impl.plugin_name}' returned {type(new).__name__} from its wrapper "
                f"of {hook_name}; expected a list (ignored)"
            )
            return result
        before = result if isinstance(result, list) else [result]
        for value in new if isinstance(new, list) else [new]:
            if value is not None and not any(value is old for old in before):
                attribution.add(impl.plugin_name, value)
        return new

    def _failed(self, impl: pluggy.HookImpl, hook_name: str, exc: BaseException) -> None:
        role = " (wrapper)" if impl.wrapper or impl.hookwrapper else ""
        self.report(f"plugin '{impl.plugin_name}' failed in {hook_name}{role}: {exc}")


def _arguments(impl: pluggy.HookImpl, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments an implementation names (pluggy's rule: any subset).

    An argument the implementation requires that the call does not give is the caller's
    error, as in pluggy: `HookCallError`, raised to the caller, not blamed on the plugin."""
    for name in impl.argnames:
        if name not in kwargs:
            raise pluggy.HookCallError(f"hook call must provide argument {name!r}")
    return {name: kwargs[name] for name in (*impl.argnames, *impl.kwargnames) if name in kwargs}


__all__ = ["Attribution", "Chain", "IsolatedCall", "attributed"]
