"""Every plugin's JSON-RPC methods, checked and attributed to the plugin that gave each."""

from __future__ import annotations

import re

from pydantic import BaseModel

from rho_kernel import PluginHost, Runtime, hookspecs
from rho_kernel.rpc import RpcMethod

#: A method name: printable ASCII without spaces. `rpc.` names are JSON-RPC's own.
METHOD_NAME = re.compile(r"[A-Za-z0-9_./:-]{1,100}")
RESERVED_PREFIX = "rpc."


def method_problem(method: object) -> str | None:
    """Why a contribution cannot be served as a JSON-RPC method, or None when it can."""
    if not isinstance(method, RpcMethod):
        return f"{_shown(method)}, which is not an RpcMethod"
    name = method.name
    if not isinstance(name, str) or not METHOD_NAME.fullmatch(name):
        return (
            f"a method named {_shown(name)}; a method name is 1 to 100 letters, digits or "
            "'_', '.', '/', ':', '-'"
        )
    if name.startswith(RESERVED_PREFIX):
        return f"method '{name}', a name JSON-RPC reserves for itself"
    if not callable(method.handler):
        return f"method '{name}', whose handler cannot be called"
    for role, model in (("params", method.params_model), ("result", method.result_model)):
        if model is not None and not (isinstance(model, type) and issubclass(model, BaseModel)):
            return f"method '{name}', whose {role} model is not a pydantic BaseModel subclass"
    if not isinstance(method.summary, str):
        return f"method '{name}', whose summary is not text"
    return None


def collect_methods(runtime: Runtime) -> dict[str, RpcMethod]:
    """Every plugin's RPC methods by name, each credited to its plugin on the host.

    A contribution that is not a usable `RpcMethod` is reported and skipped. A name
    contributed twice is reported naming both plugins and kept by the plugin that loads
    first (the kernel's built-ins and rho-rpc, then entry points in name order).
    """
    plugins = runtime.plugins
    methods: dict[str, RpcMethod] = {}
    owners: dict[str, str] = {}
    for plugin, method in plugins.collect(hookspecs.rho_register_rpc_methods, runtime=runtime):
        problem = method_problem(method)
        if problem is not None:
            plugins.report(f"{plugins.describe(plugin)} contributed {problem} (skipped)")
            continue
        name = method.name
        holder = owners.get(name)
        if holder is not None:
            if plugins.rank(plugin) < plugins.rank(holder):
                plugins.uncredit("rpc_methods", name)
                holder, plugin = plugin, holder
                methods[name], owners[name] = method, holder
                plugins.credit(holder, "rpc_methods", name)
            _report_contest(plugins, name, holder, plugin)
            continue
        methods[name] = method
        owners[name] = plugin
        plugins.credit(plugin, "rpc_methods", name)
    return methods


def _report_contest(plugins: PluginHost, name: str, holder: str, skipped: str) -> None:
    plugins.report(
        f"RPC method '{name}' of {plugins.describe(skipped)} skipped: "
        f"{plugins.describe(holder)}, which loads first, contributes a method of that name; "
        "disable one of them with [plugins] disabled = [...]"
    )


def _shown(value: object) -> str:
    """A short, one-line picture of a hostile value for a message."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return " ".join(text.split())[:80]


__all__ = ["METHOD_NAME", "collect_methods", "method_problem"]
