"""JSON-RPC 2.0 dispatch: requests, notifications, batches, errors, and the two lanes.

Methods marked concurrent are answered the moment they are read (so `abort` and
`approvalResponse` work while a prompt runs); all others run one at a time in arrival order.
Lines are decoded strictly (`rho_rpc.decode`) and every message is written as standard JSON
(`rho_rpc.encode`): hostile input gets an error response, never a stuck or broken stream.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, ValidationError

from rho_kernel import diagnostics
from rho_kernel.frontend import constructed
from rho_kernel.rpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RpcError,
    RpcMethod,
)
from rho_rpc.decode import MAX_BATCH, BatchTooLarge, ParseError, RepeatedKey, decode_message
from rho_rpc.deferred import loaded
from rho_rpc.encode import NOT_JSON, encode_json, json_safe
from rho_rpc.leading_id import leading_id
from rho_rpc.params_check import unknown_params
from rho_rpc.transport import Oversize

if TYPE_CHECKING:
    from rho_kernel.frontend import Winding

_MISSING = object()
#: Why requests still unanswered when rho stops are answered with an error.
SHUTTING_DOWN = "rho is shutting down"
#: How many unknown params an error names (the rest are counted).
MAX_UNKNOWN_SHOWN = 10
DEBUG_ENV = "RHO_DEBUG"


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response object."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "error": error, "id": request_id}


#: Why an id is refused: one rho could not echo exactly as it was written.
_ID_PROBLEM = (
    "Invalid Request: id must be a string, null or an integer written without fraction or "
    "exponent (not -0)"
)


def _valid_id(value: Any) -> bool:
    """Whether `value` is an id that is echoed exactly as it was written: a string, null, or
    an integer (`type is int` leaves out booleans and `-0`; fractions and exponents decode as
    floats, which cannot be echoed as written: `1.0`, `1E2`, `1e-400`)."""
    return value is None or isinstance(value, str) or type(value) is int


def _describe_validation(error: ValidationError) -> tuple[str, list[dict[str, Any]]]:
    details = []
    for item in error.errors(include_url=False, include_context=False, include_input=False):
        where = ".".join(str(part) for part in item["loc"]) or "params"
        details.append({"param": where, "problem": item["msg"]})
    text = "; ".join(f"{d['param']}: {d['problem']}" for d in details)
    return f"Invalid params: {text}", details


def _outcome_seen(future: asyncio.Future[Any]) -> None:
    """Mark the outcome of work no request waits for as seen (no "never retrieved")."""
    if not future.cancelled():
        future.exception()


def _stopped(exc: BaseException) -> bool:
    """Whether `exc` stops the current task: it is being cancelled (not merely handed a
    cancellation raised by the work it awaited)."""
    task = asyncio.current_task()
    return isinstance(exc, asyncio.CancelledError) and task is not None and task.cancelling() > 0


@dataclass(frozen=True, slots=True)
class Request:
    """A request object whose envelope is valid: the id to answer with (None for a
    notification), the method name and the raw params (`_MISSING`, an object or an array)."""

    reply_id: Any
    is_notification: bool
    method: str
    params: Any


def read_request(message: Any) -> Request | dict[str, Any]:
    """The request in `message`, or the Invalid Request error response it gets (with the
    request's id whenever that is valid and unambiguous)."""
    repeated = message if isinstance(message, RepeatedKey) else None
    if repeated is not None:
        message = repeated.message
    if not isinstance(message, dict):
        return error_response(None, INVALID_REQUEST, "Invalid Request: expected an object")
    request_id = message.get("id", _MISSING)
    is_notification = request_id is _MISSING
    if repeated is not None and repeated.id_repeated:
        return error_response(None, INVALID_REQUEST, f"Invalid Request: {repeated.problem}")
    if not is_notification and not _valid_id(request_id):
        return error_response(None, INVALID_REQUEST, _ID_PROBLEM)
    reply_id = None if is_notification else request_id
    problem = repeated.problem if repeated is not None else _envelope_problem(message)
    if problem is not None:
        return error_response(reply_id, INVALID_REQUEST, f"Invalid Request: {problem}")
    params = message.get("params", _MISSING)
    return Request(reply_id, is_notification, message["method"], params)


def _envelope_problem(message: dict[str, Any]) -> str | None:
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc must be "2.0"'
    if not isinstance(message.get("method"), str):
        return "method must be a string"
    params = message.get("params", _MISSING)
    if params is not _MISSING and not isinstance(params, (dict, list)):
        return "params must be an object or array"
    return None


def _validated_params(method: RpcMethod, params: Any) -> tuple[dict[str, Any], Any]:
    """The raw params as an object (an empty array counts as none) and what the method's
    params model makes of them. Raises `RpcError` (Invalid params).

    Params are refused when the model does not declare them (`rho_rpc.params_check`), and
    are validated as JSON in strict mode whatever the model's own config: `"5"` is not a
    number and `"true"` not a boolean, while a string still makes a `Path` or an enum.
    """
    raw = cast("dict[str, Any] | list[Any]", {} if params is _MISSING else params)
    if isinstance(raw, list):
        if raw:
            raise RpcError(INVALID_PARAMS, "Invalid params: pass params by name (an object)")
        raw = {}
    model = method.params_model
    if model is None:
        return raw, raw
    unknown = unknown_params(model, raw)
    if unknown:
        # A hostile request may hold thousands of unknown members: name the first few.
        shown = unknown[:MAX_UNKNOWN_SHOWN]
        text = "; ".join(f"{d['param']}: {d['problem']}" for d in shown)
        if len(unknown) > len(shown):
            text += f"; and {len(unknown) - len(shown)} more unknown params"
        raise RpcError(INVALID_PARAMS, f"Invalid params: {text}", shown)
    # Plainly valid params need no validator (building the first one costs a start-up's
    # worth of time); anything else is validated, which also gives the error.
    validated = constructed(model, raw)
    if validated is not None:
        return raw, validated
    try:
        validated = model.model_validate_json(encode_json(raw), strict=True)
    except ValidationError as exc:
        text, details = _describe_validation(exc)
        raise RpcError(INVALID_PARAMS, text, details) from None
    return raw, validated


class JsonRpcServer:
    """Reads lines, dispatches them to `RpcMethod`s and writes responses through `send`."""

    def __init__(
        self,
        methods: dict[str, RpcMethod],
        send: Callable[[bytes], None],
        *,
        before_serial: Callable[[], Awaitable[None]] | None = None,
        on_queued: Callable[[str, Any], None] | None = None,
    ) -> None:
        """`before_serial` is awaited once before the first request of the serial lane runs
        (work started at startup that those requests depend on). `on_queued(method,
        params)` is called as each request is put on the serial lane, the moment it is read
        (with the params its handler will get)."""
        self.methods = methods
        self._send = send
        self._before_serial = before_serial
        self._on_queued = on_queued
        self._queue: asyncio.Queue[
            tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any]] | None
        ] = asyncio.Queue()
        self._pending: set[asyncio.Future[Any]] = set()
        #: Of `_pending`, those that run a request (the rest write answers).
        self._handlers: set[asyncio.Future[Any]] = set()
        #: The outcome of the request running in the serial lane, and the lane's task.
        self._running: asyncio.Future[Any] | None = None
        self._worker_task: asyncio.Task[None] | None = None
        #: Why unanswered requests are answered with an error (set by `abandon`).
        self._abandoned: str | None = None

    # ── output ──────────────────────────────────────────────────────────────

    def send(self, message: dict[str, Any] | list[Any]) -> None:
        """Write one message (a response, a notification or a batch of responses) as a line.

        Never raises for the message's content: a response that is not JSON becomes a -32603
        error with the same id, a notification is sent with its non-JSON values replaced.
        """
        if isinstance(message, list):
            data = b"[" + b",".join(self._encode_response(item) for item in message) + b"]"
        elif "method" in message and "id" not in message:
            data = self._encode_notification(message)
        else:
            data = self._encode_response(message)
        if data:
            self._send(data)

    @staticmethod
    def _encode_response(response: dict[str, Any]) -> bytes:
        try:
            return encode_json(response)
        except NOT_JSON as exc:
            diagnostics.error(f"a response could not be encoded as JSON: {exc}")
            reply = error_response(
                json_safe(response.get("id")),
                INTERNAL_ERROR,
                f"Internal error: the response could not be encoded as JSON ({exc})",
            )
            return encode_json(reply)

    @staticmethod
    def _encode_notification(message: dict[str, Any]) -> bytes:
        try:
            return encode_json(message)
        except NOT_JSON as exc:
            problem = f"notification {message.get('method')!r} is not valid JSON ({exc})"
        try:
            data = encode_json(json_safe(message))
        except NOT_JSON:
            diagnostics.error(f"{problem}; it was not sent")
            return b""
        diagnostics.error(f"{problem}; sent with those values replaced")
        return data

    def notify(self, method: str, params: dict[str, Any] | BaseModel | None = None) -> None:
        """Send a notification (no id)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if isinstance(params, BaseModel):
            params = params.model_dump(mode="json", exclude_none=True)
        if params is not None:
            message["params"] = params
        self.send(message)

    # ── main loop ───────────────────────────────────────────────────────────

    async def serve(
        self, lines: AsyncIterator[bytes | Oversize], winding: Winding | None = None
    ) -> None:
        """Handle every line until end of input, then finish the work already read.

        With `winding`, that work gets its grace once the input has ended (`winding` is
        started then, if it was not already): what still runs after it is stopped and its
        requests are answered with an error (`abandon`), so that this returns within the
        grace (and as long again for the answers to be written) whatever the work does.
        """
        self._worker_task = asyncio.create_task(self._worker())
        async for line in lines:
            self.handle_line(line)
        await self._queue.put(None)
        if winding is None:
            await self._worker_task
            if self._pending:
                await asyncio.gather(*self._pending, return_exceptions=True)
            return
        winding.start()
        # (waiting for the work is given up; the work itself is stopped only by `abandon`)
        everything = asyncio.ensure_future(asyncio.wait({self._worker_task, *self._pending}))
        if not await winding.settle(everything):
            self.abandon(SHUTTING_DOWN)
            answers = self._pending - self._handlers
            if answers:
                await asyncio.wait(answers, timeout=winding.grace)

    def abandon(self, reason: str) -> None:
        """Stop the work under way: every request not answered yet — the one running in the
        serial lane, those queued behind it, those running concurrently — is answered with
        -32603 (`reason`), and what runs them is cancelled."""
        self._abandoned = reason
        if self._running is not None and not self._running.done():
            self._running.set_exception(RpcError(INTERNAL_ERROR, reason))
        self.cancel_queued(reason)
        for task in list(self._handlers):
            task.cancel()
        if self._worker_task is not None:
            self._worker_task.cancel()

    def run_serially(self, work: Callable[[], Awaitable[Any]]) -> None:
        """Put `work` on the serial lane, behind every request read so far (a follow-up
        prompt). Its outcome answers no request: `work` reports its own failures, and one
        that is dropped at shutdown (`cancel_queued`) is simply not run."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        done.add_done_callback(_outcome_seen)
        self._queue.put_nowait((work, done))

    def cancel_queued(self, reason: str) -> None:
        """Answer every request still waiting in the serial lane with an error (shutdown)."""
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is None:
                self._queue.put_nowait(None)
                return
            _, future = item
            if not future.done():
                future.set_exception(RpcError(INTERNAL_ERROR, reason))

    async def _worker(self) -> None:
        waited = self._before_serial is None
        while True:
            item = await self._queue.get()
            if item is None:
                return
            if not waited and self._before_serial is not None:
                waited = True
                await self._before_serial()
            run, future = item
            self._running = future
            try:
                result = await run()
                if not future.done():
                    future.set_result(result)
            except BaseException as exc:  # delivered to the waiting response task
                if not future.done():
                    future.set_exception(exc)
                if isinstance(exc, (KeyboardInterrupt, SystemExit)) or _stopped(exc):
                    raise
            finally:
                self._running = None

    def handle_line(self, line: bytes | Oversize) -> None:
        """Parse one line and start handling it; responses are written when ready."""
        if isinstance(line, Oversize):
            request_id = leading_id(line.prefix)
            self.send(
                error_response(
                    request_id if _valid_id(request_id) else None,
                    INVALID_REQUEST,
                    f"Invalid Request: message of {line.size} bytes is too large",
                )
            )
            return
        if not line.strip():
            return
        try:
            message = decode_message(line, max_batch=MAX_BATCH)
        except ParseError as exc:
            self.send(error_response(None, PARSE_ERROR, f"Parse error: {exc}"))
            return
        except BatchTooLarge as exc:
            self.send(error_response(None, INVALID_REQUEST, f"Invalid Request: {exc}"))
            return
        if isinstance(message, list):
            if not message:
                self.send(error_response(None, INVALID_REQUEST, "Invalid Request: empty batch"))
                return
            futures = [self._dispatch_guarded(item) for item in message]
            self._track(self._answer_batch(futures))
        else:
            self._track(self._answer_one(self._dispatch_guarded(message)))

    def _track(self, coro: Awaitable[Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(coro)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task

    async def _answer_one(self, future: asyncio.Future[dict[str, Any] | None]) -> None:
        response = await future
        if response is not None:
            self.send(response)

    async def _answer_batch(self, futures: list[asyncio.Future[dict[str, Any] | None]]) -> None:
        responses = [r for r in await asyncio.gather(*futures) if r is not None]
        if responses:
            self.send(responses)

    # ── one request ─────────────────────────────────────────────────────────

    def _dispatch_guarded(self, message: Any) -> asyncio.Future[dict[str, Any] | None]:
        """`_dispatch`, answering -32603 when code it runs (a plugin's params model or
        `concurrent` callable) raises, instead of letting the exception stop the reader."""
        try:
            return self._dispatch(message)
        except Exception as exc:
            self._log_internal(str(message.get("method")), exc)
            request_id = message.get("id", _MISSING)
            done: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
            done.set_result(
                None
                if request_id is _MISSING
                else error_response(request_id, INTERNAL_ERROR, f"Internal error: {exc}")
            )
            return done

    def _dispatch(self, message: Any) -> asyncio.Future[dict[str, Any] | None]:
        """Validate a request object and schedule it; the future yields its response (or None)."""
        done: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        request = read_request(message)
        if not isinstance(request, Request):
            done.set_result(request)
            return done

        def respond(response: dict[str, Any]) -> None:
            if not done.done():
                done.set_result(None if request.is_notification else response)

        try:
            method = self._method(request.method)
            raw, validated = _validated_params(method, request.params)
        except RpcError as exc:
            respond(error_response(request.reply_id, exc.code, exc.message, exc.data))
            return done
        # Enqueued now, in arrival order, so that end of input cannot overtake it.
        queued = None if self._is_concurrent(method, raw) else self._enqueue(method, validated)
        handler = self._track(self._answer(method, request, validated, queued, respond))
        self._handlers.add(handler)
        handler.add_done_callback(self._handlers.discard)
        return done

    def _method(self, name: str) -> RpcMethod:
        method = self.methods.get(name)
        if method is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {name}")
        return loaded(method)  # a deferred method's modules are imported now

    def _enqueue(self, method: RpcMethod, validated: Any) -> asyncio.Future[Any]:
        """Put the call on the serial lane; the future yields what the handler returns."""
        queued: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        async def run() -> Any:
            return await method.handler(validated)

        if self._on_queued is not None:
            self._on_queued(method.name, validated)
        self._queue.put_nowait((run, queued))
        return queued

    async def _answer(
        self,
        method: RpcMethod,
        request: Request,
        validated: Any,
        queued: asyncio.Future[Any] | None,
        respond: Callable[[dict[str, Any]], None],
    ) -> None:
        """Await the handler (on the serial lane when `queued`) and respond with its result
        or its error."""
        reply_id = request.reply_id
        try:
            result = await (queued if queued is not None else method.handler(validated))
        except RpcError as exc:
            respond(error_response(reply_id, exc.code, exc.message, exc.data))
            return
        except asyncio.CancelledError as exc:
            if self._abandoned is not None:  # rho is stopping: the request gets its answer
                respond(error_response(reply_id, INTERNAL_ERROR, self._abandoned))
                return
            if _stopped(exc):
                raise
            # a cancellation that escaped the handler's own work: an answer all the same
            self._log_internal(request.method, exc)
            respond(error_response(reply_id, INTERNAL_ERROR, "Internal error: cancelled"))
            return
        except Exception as exc:
            self._log_internal(request.method, exc)
            respond(error_response(reply_id, INTERNAL_ERROR, f"Internal error: {exc}"))
            return
        if isinstance(result, BaseModel):
            result = result.model_dump(mode="json", exclude_none=True)
        respond({"jsonrpc": "2.0", "result": result if result is not None else {}, "id": reply_id})

    @staticmethod
    def _is_concurrent(method: RpcMethod, raw: dict[str, Any]) -> bool:
        concurrent = method.concurrent
        return bool(concurrent(raw)) if callable(concurrent) else bool(concurrent)

    @staticmethod
    def _log_internal(method: str, exc: BaseException) -> None:
        diagnostics.error(f"internal error in {method}: {type(exc).__name__}: {exc}")
        if os.environ.get(DEBUG_ENV):
            import traceback

            traceback.print_exception(exc, file=sys.stderr)


__all__ = ["SHUTTING_DOWN", "JsonRpcServer", "error_response"]
