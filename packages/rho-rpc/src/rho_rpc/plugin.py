"""rho-rpc's plugin: the core JSON-RPC methods, registered through the same hook as any other."""

from __future__ import annotations

from rho_kernel import hookimpl
from rho_kernel.rpc import RpcMethod
from rho_kernel.runtime import Runtime


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """The core methods (prompt, abort, approvalResponse, sessions, state, tools, plugins)."""
    from rho_rpc.methods import core_methods

    return core_methods(runtime)
