"""The RPC host: assembles the runtime, the server and the client peer, and runs until EOF."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from rho_kernel import hookspecs
from rho_kernel.frontend import Winding, run_to_end
from rho_kernel.rpc import RpcMethod
from rho_kernel.session import warm_estimates
from rho_rpc import startup_gc
from rho_rpc.deferred import CoreDeferredMethod
from rho_rpc.diagnostics import report
from rho_rpc.followups import FOLLOW_UPS_KEY, FollowUps
from rho_rpc.method_registry import collect_methods
from rho_rpc.peer import RpcPeer
from rho_rpc.pending_prompts import PENDING_KEY, PendingPrompts
from rho_rpc.plugin import PEER_KEY
from rho_rpc.server import SHUTTING_DOWN, JsonRpcServer
from rho_rpc.transport import Oversize, StdinPump, StdoutWriter, read_lines

if TYPE_CHECKING:
    from rho_kernel import Runtime

#: Said on stderr at startup when no plugin contributes a tool.
NO_TOOLS_NOTE = (
    "no tool packs are installed (or all are disabled), so the model can call no tools; "
    "add one with 'uv tool install rho-rpc --with rho-tools-fs', or 'pip install "
    "rho-tools-fs' into rho's environment (see docs/plugins.md)"
)


#: What `rpc.discover` is, in the OpenRPC document.
DISCOVER_SUMMARY = "The OpenRPC document of this server."


def add_discover(methods: dict[str, RpcMethod]) -> None:
    """Add `rpc.discover`, which returns the OpenRPC document of `methods` (its modules are
    imported on its first request)."""

    def complete() -> RpcMethod:
        from rho_rpc import __version__
        from rho_rpc.openrpc import build_openrpc
        from rho_rpc.protocol.base import NoParams

        async def discover(_: NoParams) -> dict[str, Any]:
            return build_openrpc(methods, __version__)

        return RpcMethod(
            "rpc.discover",
            discover,
            params_model=NoParams,
            summary=DISCOVER_SUMMARY,
            concurrent=True,
        )

    methods["rpc.discover"] = CoreDeferredMethod(
        "rpc.discover", complete, summary=DISCOVER_SUMMARY, concurrent=True
    )


async def serve(
    runtime: Runtime,
    winding: Winding | None = None,
    *,
    stdin: StdinPump | None = None,
    announced: dict[str, Any] | None = None,
) -> None:
    """Announce `ready`, answer requests until end of input or a signal, then shut down
    cleanly: the running prompt is cancelled, and whatever still runs when `winding`'s
    grace is over is abandoned (see `rho_rpc.shutdown`).

    `announced`: `ready` was sent already, with these params, before the runtime loaded
    (see `rho_rpc.early_ready`); `stdin` has been reading the client's input since then."""
    server, peer = _start(runtime)
    _announce_ready(runtime, server, announced)
    startup_gc.resume()
    winding = winding or Winding()

    def on_end() -> None:
        # The client is gone: no turn runs on (its commands are stopped); the other
        # requests it sent are still answered, within the grace. The abort comes after the
        # call waiting for approval, if any, has taken in that the client went away.
        asyncio.get_running_loop().call_soon(runtime.abort)
        winding.start()

    client = _ClientInput(peer, on_end, stdin)

    def on_signal() -> None:
        # Stop reading, drop queued work, cancel the running prompt; serve() then returns.
        # A second signal stops waiting for the work to wind down.
        if winding.started:
            winding.end_now()
        client.stop("signal")
        server.cancel_queued(SHUTTING_DOWN)
        on_end()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, on_signal)
    try:
        await server.serve(client.lines(), winding)
    finally:
        runtime.plugins.call_each(hookspecs.rho_shutdown, runtime=runtime)
        await runtime.aclose(client.reason)


def _of_turn(runtime: Runtime, params: dict[str, Any]) -> dict[str, Any]:
    """A plugin's notification params, with the running turn's id when one runs."""
    turn = runtime.turn_id
    return {**params, "turnId": turn} if turn is not None else dict(params)


def _start(runtime: Runtime) -> tuple[JsonRpcServer, RpcPeer]:
    """The server with every method, the peer plugins talk to the client through, and the
    plugins started."""
    writer = StdoutWriter()
    server: JsonRpcServer
    peer = RpcPeer(lambda method, params: server.notify(method, params))
    runtime.stash[PEER_KEY] = peer
    runtime.notifier = lambda method, params: server.notify(method, _of_turn(runtime, params))
    methods = collect_methods(runtime)
    add_discover(methods)
    pending = PendingPrompts(runtime)
    runtime.stash[PENDING_KEY] = pending
    server = JsonRpcServer(
        methods,
        writer.write_line,
        before_serial=runtime.startup_settled,
        on_queued=pending.read,
    )
    runtime.stash[FOLLOW_UPS_KEY] = FollowUps(runtime, peer, server.run_serially)
    runtime.plugins.call_each(hookspecs.rho_startup, runtime=runtime)
    # A resumed session's context estimates are made now, once (a few milliseconds per
    # thousand entries), so that the client's first getSessionStats only adds them up.
    try:
        warm_estimates(runtime.session)
    except Exception as exc:  # the estimates are made again on demand
        report(f"context estimates of the session could not be made: {exc}", "warning")
    return server, peer


def ready_params(runtime: Runtime) -> dict[str, Any]:
    """The params of `ready` for `runtime` as it is now."""
    from rho_kernel.frontend import rho_version

    ready: dict[str, Any] = {
        "version": rho_version(),
        "model": runtime.model or None,  # null while none is chosen
        "provider": runtime.provider.name,
        "cwd": str(runtime.root.path),
        "sessionPath": str(runtime.session.path or ""),
    }
    if runtime.model_problem is not None:
        ready["modelProblem"] = runtime.model_problem
    return ready


def _announce_ready(
    runtime: Runtime, server: JsonRpcServer, announced: dict[str, Any] | None = None
) -> None:
    """Send `ready` (unless it was `announced` already), then do what can wait until the
    client is told."""
    ready = ready_params(runtime)
    if announced is None:
        server.notify("ready", ready)
    elif announced != ready:  # the config files changed meanwhile (or early_start erred)
        report(
            f"ready said {announced}, but the runtime loaded as {ready} (did the config "
            "files change while rho started?)",
            "warning",
        )
    if runtime.model_problem is not None:
        report(runtime.model_problem, "warning")
    _session_hint(runtime)
    if len(runtime.tools) == 0:
        report(NO_TOOLS_NOTE, "warning")
    # Tool schemas are built now, after `ready`, while the client prepares its first request.
    runtime.tools.prepare(runtime.plugins.report)
    if any(tool.runs_processes for tool in runtime.tools):
        # The sandbox is probed in the background; an unconfined fallback is said once.
        asyncio.get_running_loop().run_in_executor(None, runtime.confinement.announce)


class _ClientInput:
    """The client's lines until end of input or `stop`; `reason` says which ended them,
    and `on_end` is called when they end."""

    def __init__(
        self, peer: RpcPeer, on_end: Callable[[], None], stdin: StdinPump | None = None
    ) -> None:
        self._peer = peer
        self._on_end = on_end
        self._stdin = stdin
        self._stop = asyncio.Event()
        self.reason = "transport EOF"

    def stop(self, reason: str) -> None:
        """Stop reading (the line being read is dropped)."""
        self.reason = reason
        self._stop.set()

    async def lines(self) -> AsyncIterator[bytes | Oversize]:
        """Each line read from stdin; the peer's input is closed when they end."""
        lines = read_lines(pump=self._stdin).__aiter__()
        stopping = asyncio.ensure_future(self._stop.wait())
        try:
            while True:
                reading = asyncio.ensure_future(lines.__anext__())
                await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not reading.done():
                    reading.cancel()
                    break
                try:
                    line = reading.result()
                except StopAsyncIteration:
                    break
                yield line
        finally:
            stopping.cancel()
            self._peer.close_input()
            self._on_end()


def _session_hint(runtime: Runtime) -> None:
    """Name the session file on stderr and, for a new session, how to resume earlier ones."""
    path = runtime.session.path
    if path is None:
        return
    report(f"session: {path}")
    options = runtime.options
    if options.continue_latest or options.session_path is not None or options.session:
        return
    others = [p for p in path.parent.glob("*.jsonl") if p != path]
    if others:
        report(f"{len(others)} previous session(s) for this project; rho -c resumes the latest")


def run(
    runtime: Runtime,
    *,
    stdin: StdinPump | None = None,
    announced: dict[str, Any] | None = None,
) -> int:
    """Run the server on stdio; the process exit code (130 on a Ctrl-C before rho handles
    it). The process ends even when work it started cannot be stopped
    (`rho_kernel.frontend.run_to_end`). `stdin` and `announced`: see `serve`."""

    winding = Winding()

    async def main() -> int:
        await serve(runtime, winding, stdin=stdin, announced=announced)
        return 0

    return run_to_end(main(), winding=winding)


__all__ = ["NO_TOOLS_NOTE", "add_discover", "collect_methods", "ready_params", "run", "serve"]
