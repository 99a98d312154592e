"""The keys plugins add to `getState`'s result through `rho_state` (rho-mcp's `mcp`, …)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from rho_kernel import hookspecs
from rho_rpc.diagnostics import report_once
from rho_rpc.encode import NOT_JSON, encode_json

if TYPE_CHECKING:
    from rho_kernel import Runtime


def plugin_state(runtime: Runtime, own: Collection[str]) -> dict[str, Any]:
    """Every plugin's `getState` keys, merged; `own` are the keys `getState` has itself.

    A key that is one of `own`, or that a plugin loading earlier gave too, is reported (once)
    and skipped; so are an answer that is not a dict, a key that is not text and a value that
    is not JSON. A plugin that raises is reported by the plugin host and adds nothing.
    """
    plugins = runtime.plugins
    answers = plugins.call_each(hookspecs.rho_state, runtime=runtime)
    ranks = {plugin: plugins.rank(plugin) for plugin, _ in answers}
    merged: dict[str, Any] = {}
    givers: dict[str, str] = {}
    for plugin, answer in sorted(answers, key=lambda pair: ranks[pair[0]]):
        if not isinstance(answer, dict):
            report_once(
                runtime,
                f"{plugins.describe(plugin)} returned {type(answer).__name__} from rho_state; "
                "expected a dict (ignored)",
            )
            continue
        for key, value in answer.items():
            problem = _problem(key, value, own, givers, plugins.describe)
            if problem is not None:
                where = f"getState key {_shown(key)} of {plugins.describe(plugin)}"
                report_once(runtime, f"{where} skipped: {problem}")
                continue
            merged[key] = value
            givers[key] = plugin
    return merged


def _problem(
    key: object,
    value: object,
    own: Collection[str],
    givers: dict[str, str],
    describe: Callable[[str], str],
) -> str | None:
    """Why a plugin's key cannot join `getState`'s result, or None when it can."""
    if not isinstance(key, str):
        return "it is not text"
    if key in own:
        return "getState has a member of that name"
    if key in givers:
        return f"{describe(givers[key])}, which loads first, gives that key"
    try:
        encode_json(value)
    except NOT_JSON as exc:
        return f"its value is not JSON ({type(exc).__name__}: {exc})"
    return None


def _shown(key: object) -> str:
    """A key for a message: text quoted, anything else by its type."""
    return repr(key[:80]) if isinstance(key, str) else f"of type {type(key).__name__}"


__all__ = ["plugin_state"]
