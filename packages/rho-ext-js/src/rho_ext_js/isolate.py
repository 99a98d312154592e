"""One extension's V8 isolate: loads its manifest, runs its tools, hooks and commands.

Imported lazily (it pulls in mini-racer). An `Isolate` lives on the asyncio loop that
started it. Calls are serialised per isolate.

Authority: each call gets a fresh token (`secrets.token_hex`) that maps to its `context`
while the call runs and is forgotten when it ends. The prelude tags every message with the
token of the turn that posted it: the call's own invocation, the answer to a request the
call made, or a timer the call scheduled (see prelude.js). A host request gets the context
of its token's call if that call is still running, and None (least authority) otherwise: a
timer from `onLoad` or a continuation of an ended call never borrows the call that happens
to be running. Only rho can set a turn's token: the bridge's entry points need a per-isolate
key that rho passes in each evaluation and the extension cannot read.

How rho talks to the isolate: rho only ever *evaluates code* in it, with mini-racer's
cancelable eval, which never blocks the event loop even while the extension spins. The
extension talks back through an outbox: it queues JSON messages and pings rho with a
one-way notification; rho then fetches them with `__rho_bridge.drain(key)`. (mini-racer's own
`wrap_py_function` answers JS with blocking calls, which would freeze rho if the extension
loops after calling a host function; its notification primitive is the one part of
mini-racer's internals used here, hence the pin to mini-racer 0.14.)

Limits: a call over `max_execution_time_s` raises `ExtensionTimeout`; if the isolate then
still answers (the call only waited on a promise that never settled) it stays usable,
otherwise (a runaway loop) it is closed, which stops the loop. A call that pushes the heap
past `max_memory_mb` raises `ExtensionMemoryError` and the isolate is closed: its heap is
full of what the extension still holds. A closed isolate refuses further calls with
`ExtensionError`; start a new one.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import secrets
import time
from contextlib import AbstractContextManager, suppress
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from rho_ext_js.host import (
    ExtensionError,
    ExtensionMemoryError,
    ExtensionTimeout,
    HostApi,
    Limits,
)
from rho_ext_js.hostcalls import answer_host_call
from rho_kernel import diagnostics, scrub_json, scrub_surrogates

if TYPE_CHECKING:
    from py_mini_racer import MiniRacer

_SCRIPTS = ("prelude.js", "webapi.js", "manifest.js")
#: How often a running call checks the heap limit (seconds).
_POLL_S = 0.05
#: How long an isolate may take to answer after a timed-out call before it counts as stuck.
_PROBE_S = 1.0
_LEVELS = frozenset({"trace", "debug", "info", "warn", "error"})


@cache
def _environment_source() -> str:
    """The JS environment installed in every isolate (package data, read once)."""
    package = files("rho_ext_js")
    return "\n".join(package.joinpath(name).read_text(encoding="utf-8") for name in _SCRIPTS)


def _js(value: Any) -> str:
    """`value` as a JS literal (JSON with every non-ASCII character escaped)."""
    return json.dumps(value, ensure_ascii=True)


class Isolate:
    """A V8 isolate running one extension; create it with `await Isolate.start(...)`."""

    def __init__(self, name: str, host: HostApi, limits: Limits) -> None:
        """Use `Isolate.start`: the isolate needs its environment installed on the loop."""
        self.name = name
        self._host = host
        self._limits = limits
        self._mr: MiniRacer | None = None
        self._wake_cm: AbstractContextManager[Any] | None = None
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._key = secrets.token_hex(16)
        #: The token of each running call, and the context each live token grants.
        self._tokens: dict[int, str] = {}
        self._live: dict[str, Any] = {}

    @classmethod
    async def start(cls, name: str, host: HostApi, limits: Limits) -> Isolate:
        """A new isolate with the extension environment installed (`rho`, web APIs)."""
        from py_mini_racer import MiniRacer

        self = cls(name, host, limits)
        mr = MiniRacer()
        self._mr = mr
        try:
            mr.set_hard_memory_limit(limits.max_memory_mb * 1024 * 1024)
            # The notification primitive: a one-way JS -> Python call that never blocks.
            context: Any = mr._ctx  # private: see the module docstring
            self._wake_cm = context._register_js_notification(self._on_wake)
            wake = self._wake_cm.__enter__()
            install: Any = mr.eval("f => { globalThis.__rho_wake = f; }")
            install(wake)
            await self._eval(_environment_source())
            settings = {"cwd": host.cwd(), "model": "", "seed": os.urandom(44).hex()}
            await self._eval(self._bridge("init", _js(settings)))
        except BaseException:
            self.close()
            raise
        return self

    @property
    def closed(self) -> bool:
        """Whether the isolate is gone (closed, or stopped by a limit)."""
        return self._mr is None

    async def load(self, script: str, context: Any = None) -> dict[str, Any]:
        """Evaluate the extension's script (as a call with `context`); its value is the
        manifest, described as plain data.

        The description: `{name, version, tools: [{name, description, risk, parameters}],
        hooks: [names], commands: [{name, description}]}`.
        """
        label = (
            "".join(ch for ch in self.name if ch.isprintable() and ch not in "\r\n") or "extension"
        )
        source = f"{script}\n//# sourceURL={label}"
        descriptor = await self._call("load", "", source, context)
        if not isinstance(descriptor, dict):
            raise ExtensionError("the manifest could not be described")
        return descriptor

    async def call_tool(self, name: str, args_json: str, context: Any = None) -> Any:
        """Run tool `name`'s `execute(args_json)`: the string or object it returned."""
        return await self._call("tool", name, args_json, context)

    async def call_hook(self, hook: str, payload: Any, context: Any = None) -> Any:
        """Run hook `hook(payload)` if the manifest has it: what it returned (None if absent)."""
        return await self._call("hook", hook, payload, context)

    async def call_command(self, name: str, args: str, context: Any = None) -> str:
        """Run command `name`'s `handler(args)`: its text (objects as JSON, nothing as "")."""
        result = await self._call("command", name, args, context)
        return result if isinstance(result, str) else ""

    async def set_model(self, model: str) -> None:
        """What `rho.getModel()` returns from now on."""
        self._check_open()
        await self._eval(self._bridge("init", _js({"model": model})))

    def close(self) -> None:
        """Stop the isolate (a runaway script included) and fail its pending calls."""
        mr, self._mr = self._mr, None
        if mr is None:
            return
        for task in list(self._tasks):
            task.cancel()
        for future in self._calls.values():
            future.cancel()  # the waiting call sees the isolate closed and raises
        wake_cm, self._wake_cm = self._wake_cm, None

        def free() -> None:
            if wake_cm is not None:
                wake_cm.__exit__(None, None, None)
            mr.close()

        try:
            # Let the cancelled evals unwind (they cancel their V8 task) before the context goes.
            asyncio.get_running_loop().call_soon(free)
        except RuntimeError:
            free()

    # --- calls --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._mr is None:
            raise ExtensionError(f"extension {self.name} is not running")

    def _bridge(self, function: str, *args: Any) -> str:
        """The code that calls `__rho_bridge.<function>(key, *args)`.

        Strict, so that no stack frame of the extension can reach this script's function
        (and through it the key in its text)."""
        literals = ", ".join(_js(arg) for arg in (self._key, *args))
        return f'"use strict"; __rho_bridge.{function}({literals})'

    async def _call(self, kind: str, name: str, arg: Any, context: Any) -> Any:
        async with self._lock:
            self._check_open()
            call_id = next(self._ids)
            done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._calls[call_id] = done
            token = secrets.token_hex(16)
            self._tokens[call_id] = token
            self._live[token] = context
            code = self._bridge("invoke", call_id, kind, name, arg, token)
            try:
                return await self._run(code, done)
            finally:
                self._calls.pop(call_id, None)
                self._end(call_id)

    def _end(self, call_id: int) -> None:
        """The call is over: its token grants nothing from now on."""
        token = self._tokens.pop(call_id, None)
        if token is not None:
            self._live.pop(token, None)

    def _context_of(self, token: Any) -> Any:
        """The context a message's token grants: its call's, while that call runs."""
        return self._live.get(token) if isinstance(token, str) else None

    async def _run(self, code: str, done: asyncio.Future[Any]) -> Any:
        started = self._spawn(self._eval(code))
        deadline = time.monotonic() + self._limits.max_execution_time_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                started.cancel()
                await self._after_timeout()
                raise ExtensionTimeout(
                    f"extension {self.name}: call exceeded "
                    f"{self._limits.max_execution_time_s:g} s and was stopped"
                )
            # Once the eval that started the call has ended, only the call's outcome is
            # awaited (an ended task would wake this loop at once, again and again).
            waiting = {done} if started.done() else {done, started}
            await asyncio.wait(
                waiting,
                timeout=min(_POLL_S, remaining),
                return_when=asyncio.FIRST_COMPLETED,
            )
            self._check_memory()
            if started.done() and not started.cancelled() and started.exception() is not None:
                raise self._engine_error(started.exception())
            if done.done():
                return done.result()

    def _check_memory(self) -> None:
        mr = self._mr
        if mr is not None and mr.was_hard_memory_limit_reached():
            self.close()
            raise ExtensionMemoryError(
                f"extension {self.name}: exceeded its memory limit of "
                f"{self._limits.max_memory_mb} MB and was stopped"
            )
        if mr is None:
            raise ExtensionError(f"extension {self.name} was closed")

    async def _after_timeout(self) -> None:
        """Keep the isolate if it still answers; a runaway script is stopped by closing it."""
        try:
            # init resets the turn's token: what the stopped call left queued runs with none.
            await asyncio.wait_for(self._eval(self._bridge("init", "{}")), _PROBE_S)
        except (TimeoutError, Exception):
            self.close()

    def _engine_error(self, error: BaseException | None) -> ExtensionError:
        from py_mini_racer import JSOOMException

        if isinstance(error, ExtensionError):
            return error
        if isinstance(error, JSOOMException):
            self.close()
            return ExtensionMemoryError(
                f"extension {self.name}: exceeded its memory limit of "
                f"{self._limits.max_memory_mb} MB and was stopped"
            )
        return ExtensionError(self._without_secrets(scrub_surrogates(str(error))))

    def _without_secrets(self, text: str) -> str:
        """`text` with the bridge key and live tokens blanked: the engine quotes the line it
        failed on, and rho's own lines carry them."""
        for secret in (self._key, *self._live):
            text = text.replace(secret, "[secret]")
        return text

    async def _eval(self, code: str) -> Any:
        mr = self._mr
        if mr is None:
            raise ExtensionError(f"extension {self.name} is not running")
        return await mr.eval_cancelable(code)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._settled)
        return task

    def _settled(self, task: asyncio.Task[Any]) -> None:
        """Forget a finished task; its failure was either handled by the call that awaited
        it or no longer matters (the call already failed on a limit and was stopped)."""
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()  # marks it retrieved: no "never retrieved" noise on stderr

    # --- messages from the extension ----------------------------------------------------

    def _on_wake(self, _handle: object) -> None:
        if self._mr is not None:
            self._spawn(self._drain())

    async def _drain(self) -> None:
        try:
            text = await self._eval(self._bridge("drain"))
            messages = json.loads(text) if isinstance(text, str) else []
        except (ExtensionError, ValueError):
            return
        except Exception as error:
            if self._mr is not None:
                diagnostics.warn(f"extension {self.name}: lost messages: {error}")
            return
        for envelope in messages if isinstance(messages, list) else []:
            if isinstance(envelope, dict) and isinstance(envelope.get("m"), dict):
                self._dispatch(envelope["m"], envelope.get("c"))

    def _dispatch(self, message: dict[str, Any], token: Any) -> None:
        """Act on one message, with the context of the token of the turn that posted it
        (looked up now, in posting order: a call's requests come before its `done`)."""
        kind = message.get("t")
        context = self._context_of(token)
        if kind == "done":
            self._finish(message)
        elif kind == "log":
            self._spawn(self._log(message.get("level"), message.get("message"), context))
        elif kind == "host" and isinstance(message.get("id"), int):
            request = message["id"]
            token = token if isinstance(token, str) else ""
            self._spawn(
                self._answer(request, message.get("op"), message.get("args"), context, token)
            )

    def _finish(self, message: dict[str, Any]) -> None:
        call = message.get("call")
        if not isinstance(call, int):
            return
        future = self._calls.get(call)
        if future is None or future.done():
            return
        self._end(call)  # what the call left running (timers, continuations) lapses with it
        if message.get("ok") is True:
            future.set_result(scrub_json(message.get("value")))
            return
        error = message.get("error")
        error = error if isinstance(error, dict) else {}
        text = error.get("message")
        stack = error.get("stack")
        future.set_exception(
            ExtensionError(
                scrub_surrogates(text) if isinstance(text, str) else "the extension failed",
                scrub_surrogates(stack) if isinstance(stack, str) else "",
            )
        )

    async def _log(self, level: Any, text: Any, context: Any) -> None:
        level = level if level in _LEVELS else "info"
        text = scrub_surrogates(text) if isinstance(text, str) else str(text)
        try:
            await self._host.log(level, text, context)
        except Exception as error:
            diagnostics.warn(f"extension {self.name}: log failed: {error}")

    async def _answer(self, request: int, op: Any, args: Any, context: Any, token: str) -> None:
        answer = await answer_host_call(self.name, self._host, op, args, context)
        with suppress(ExtensionError):
            # The continuation runs with the token the request was made with.
            await self._eval(self._bridge("settle", request, _js(answer), token))


__all__ = ["Isolate"]
