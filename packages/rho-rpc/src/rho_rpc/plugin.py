"""rho-rpc's plugin: the core JSON-RPC methods, the approval gate that asks the client, and the
observer that turns loop events into notifications — each through the same hook as any
other plugin's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import StashKey, hookimpl

if TYPE_CHECKING:  # `rho trust` loads this module too: it must not import the agent loop
    from rho_kernel import ApprovalGate, Observer, RhoConfig, RpcMethod, Runtime
    from rho_rpc.peer import RpcPeer


#: Where the RPC host keeps the connected client in the runtime's stash.
PEER_KEY: StashKey[RpcPeer] = StashKey("rho-rpc client")


def _peer(runtime: Runtime) -> RpcPeer | None:
    """The connected client, which the RPC host keeps in the runtime's stash (None in a
    runtime that no client drives)."""
    return runtime.stash.get(PEER_KEY)


@hookimpl
def rho_approval_gate(config: RhoConfig, runtime: Runtime) -> ApprovalGate | None:
    """Approvals are asked of the connected client (`approval/request`)."""
    return _peer(runtime)


@hookimpl
def rho_register_observers(config: RhoConfig, runtime: Runtime) -> list[Observer]:
    """Loop events reach the connected client as notifications."""
    peer = _peer(runtime)
    return [peer] if peer is not None else []


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """The core methods (prompt, abort, approvalResponse, sessions, state, tools, commands,
    plugins)."""
    from rho_rpc.method_table import core_methods

    return core_methods(runtime)
