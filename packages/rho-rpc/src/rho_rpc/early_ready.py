"""`ready` before the runtime loads.

rho tells the client it is ready as soon as it can read requests: the flags are parsed, the
config files read (not yet validated) and stdin is being read (`StdinPump`). What `ready`
says comes from `rho_kernel.early_start`, which answers only where loading the runtime is
sure to give the same (else rho loads first and sends `ready` after, as it always did).
asyncio, pydantic, the plugins and the runtime load right after; the requests the client
writes meanwhile are held and served in the order they were written once the runtime is
there, exactly as requests written right after a late `ready` would be. A load that fails
says why on stderr and rho exits with status 2, as before (with `ready` already sent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rho_rpc.encode import encode_json
from rho_rpc.transport import StdinPump, StdoutWriter

if TYPE_CHECKING:
    from rho_kernel.frontend import EarlyStart


def early_ready_params(early: EarlyStart) -> dict[str, Any]:
    """The params of `ready` for a start that `early` describes (as `app.ready_params` gives
    them once the runtime has loaded)."""
    from rho_kernel.frontend import rho_version

    path = early.session_path
    return {
        "version": rho_version(),
        "model": early.model,
        "provider": early.provider,
        "cwd": str(early.root),
        "sessionPath": str(path) if path is not None else "",
    }


def announce(early: EarlyStart) -> tuple[StdinPump, dict[str, Any]]:
    """Start reading stdin, then write `ready`: the reader and the params sent."""
    stdin = StdinPump().start()
    params = early_ready_params(early)
    StdoutWriter().write_line(encode_json({"jsonrpc": "2.0", "method": "ready", "params": params}))
    return stdin, params


__all__ = ["announce", "early_ready_params"]
