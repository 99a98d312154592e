"""Scripted replies for `ScriptedServer`: SSE streams, errors, hangs, raw bodies, fixtures.

A reply is any object with a `write(handler)` method; the server calls it on its handler
thread with the request handler, which offers `send_response`, `send_header`, `end_headers`,
`wfile` and `stop_event` (set when the server stops: long waits must use
`handler.stop_event.wait(seconds)` so shutdown stays prompt).
"""

from __future__ import annotations

import io
import json
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

DEFAULT_USAGE: dict[str, int] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
"""The usage `text_reply` and the tool-call replies report unless told otherwise."""

SCRIPTED_MODEL = "scripted-model"


class ReplyHandler(Protocol):
    """What a reply may use of the server's request handler."""

    @property
    def wfile(self) -> io.BufferedIOBase:
        """The response body stream."""

    @property
    def stop_event(self) -> threading.Event:
        """Set when the server stops."""

    def send_response(self, code: int, message: str | None = None) -> None: ...

    def send_header(self, keyword: str, value: str) -> None: ...

    def end_headers(self) -> None: ...


class Reply(Protocol):
    """One scripted answer to one POST."""

    def write(self, handler: ReplyHandler) -> None: ...


def _send_body(
    handler: ReplyHandler,
    status: int,
    body: bytes,
    content_type: str,
    headers: Mapping[str, str] | None,
) -> None:
    handler.send_response(status)
    if content_type:
        handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Connection", "close")
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    if body:
        handler.wfile.write(body)
        handler.wfile.flush()


@dataclass
class SSEReply:
    """A `text/event-stream` reply: each payload as one `data:` event, then `[DONE]`.

    Dict payloads are JSON-encoded, strings sent verbatim. `event_names[i]` (when not None) adds
    an `event:` line to payload i; `comments_before` sends that many `: {comment}` lines first;
    `delay` sleeps between events; `split_every` writes the bytes in pieces of that size;
    `done=False` omits the final `data: [DONE]`. The connection closes after the last event.
    """

    payloads: Sequence[str | dict[str, Any]]
    _: KW_ONLY
    done: bool = True
    event_names: Sequence[str | None] | None = None
    comments_before: int = 0
    comment: str = "keep-alive"
    delay: float = 0.0
    split_every: int | None = None
    headers: Mapping[str, str] | None = None
    status: int = 200

    def events(self) -> list[bytes]:
        """The encoded events (comments first, `[DONE]` last), one bytes object each."""
        blobs = [f": {self.comment}\n\n".encode() for _ in range(self.comments_before)]
        names = list(self.event_names or [])
        for index, payload in enumerate(self.payloads):
            data = payload if isinstance(payload, str) else json.dumps(payload)
            name = names[index] if index < len(names) else None
            prefix = f"event: {name}\n" if name else ""
            blobs.append(f"{prefix}data: {data}\n\n".encode())
        if self.done:
            blobs.append(b"data: [DONE]\n\n")
        return blobs

    def body(self) -> bytes:
        """The whole stream as the client receives it."""
        return b"".join(self.events())

    def write(self, handler: ReplyHandler) -> None:
        """Send the headers, then the events (with the configured delays and splits)."""
        handler.send_response(self.status)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        for name, value in (self.headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.flush()
        blobs = self.events() if self.delay > 0 else [self.body()]
        for index, blob in enumerate(blobs):
            if index and self.delay > 0 and handler.stop_event.wait(self.delay):
                return
            self._send(handler, blob)

    def _send(self, handler: ReplyHandler, blob: bytes) -> None:
        step = self.split_every
        if step and step > 0:
            for start in range(0, len(blob), step):
                handler.wfile.write(blob[start : start + step])
                handler.wfile.flush()
        else:
            handler.wfile.write(blob)
            handler.wfile.flush()


@dataclass
class ErrorReply:
    """An error status with a body (a dict body is sent as JSON)."""

    status: int
    body: str | dict[str, Any] | None = None
    headers: Mapping[str, str] | None = None
    content_type: str = "application/json"

    def write(self, handler: ReplyHandler) -> None:
        """Send the status, headers and body."""
        body = self.body
        if body is None:
            body = {"error": {"message": f"scripted error {self.status}", "type": "scripted"}}
        raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        _send_body(handler, self.status, raw, self.content_type, self.headers)


@dataclass
class RawReply:
    """Any status with raw bytes and a Content-Type (an empty one sends no Content-Type)."""

    status: int
    body: bytes
    content_type: str = "text/html"
    headers: Mapping[str, str] | None = None

    def write(self, handler: ReplyHandler) -> None:
        """Send the status, headers and body."""
        _send_body(handler, self.status, self.body, self.content_type, self.headers)


@dataclass
class HangReply:
    """Sends the 200 SSE headers, then nothing for `seconds` (or until the server stops).

    With `before_headers=True` it sends nothing at all while it waits.
    """

    seconds: float = 3600.0
    _: KW_ONLY
    before_headers: bool = False

    def write(self, handler: ReplyHandler) -> None:
        """Wait (headers first unless `before_headers`)."""
        if not self.before_headers:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.flush()
        handler.stop_event.wait(self.seconds)


def chat_chunk(
    delta: dict[str, Any], finish_reason: str | None = None, *, model: str = SCRIPTED_MODEL
) -> dict[str, Any]:
    """One Chat Completions stream chunk with a single choice."""
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def usage_chunk(usage: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The final Chat Completions chunk carrying usage and no choices."""
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": SCRIPTED_MODEL,
        "choices": [],
        "usage": dict(DEFAULT_USAGE if usage is None else usage),
    }


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    count = max(1, min(pieces, len(text)))
    size = math.ceil(len(text) / count)
    return [text[start : start + size] for start in range(0, len(text), size)]


def text_reply(
    text: str,
    *,
    chunks: int = 1,
    usage: Mapping[str, Any] | None = None,
    finish_reason: str | None = "stop",
    reasoning: str | None = None,
) -> SSEReply:
    """A Chat Completions stream answering `text` in `chunks` content deltas.

    Role chunk, optional `reasoning_content` chunk, the content chunks, a finish chunk, and a
    usage chunk with `choices: []` (`usage` in wire shape; default prompt 10 / completion 5).
    """
    payloads: list[str | dict[str, Any]] = [chat_chunk({"role": "assistant", "content": ""})]
    if reasoning:
        payloads.append(chat_chunk({"reasoning_content": reasoning}))
    payloads.extend(chat_chunk({"content": piece}) for piece in _split(text, chunks))
    payloads.append(chat_chunk({}, finish_reason))
    payloads.append(usage_chunk(usage))
    return SSEReply(payloads)


def tool_calls_reply(
    calls: Sequence[tuple[str, Mapping[str, Any] | str]],
    *,
    call_ids: Sequence[str] | None = None,
    text: str = "",
    usage: Mapping[str, Any] | None = None,
) -> SSEReply:
    """A Chat Completions stream requesting several tool calls (finish_reason "tool_calls").

    Each call's first fragment carries id, type and name with empty arguments; the arguments
    follow in two fragments. Dict arguments are JSON-encoded, strings sent as they are. Ids
    default to `call_scripted_<n>`.
    """
    payloads: list[str | dict[str, Any]] = [chat_chunk({"role": "assistant", "content": None})]
    if text:
        payloads.append(chat_chunk({"content": text}))
    for index, (name, arguments) in enumerate(calls):
        call_id = (
            call_ids[index] if call_ids and index < len(call_ids) else f"call_scripted_{index}"
        )
        raw = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        payloads.append(chat_chunk({"tool_calls": [first]}))
        half = len(raw) // 2
        for part in (raw[:half], raw[half:]):
            if part:
                fragment = {"index": index, "function": {"arguments": part}}
                payloads.append(chat_chunk({"tool_calls": [fragment]}))
    payloads.append(chat_chunk({}, "tool_calls"))
    payloads.append(usage_chunk(usage))
    return SSEReply(payloads)


def tool_call_reply(
    name: str,
    arguments: Mapping[str, Any] | str,
    *,
    call_id: str | None = None,
    text: str = "",
    usage: Mapping[str, Any] | None = None,
) -> SSEReply:
    """A Chat Completions stream requesting one tool call (see `tool_calls_reply`)."""
    return tool_calls_reply(
        [(name, arguments)],
        call_ids=[call_id] if call_id else None,
        text=text,
        usage=usage,
    )


@dataclass(frozen=True)
class FixtureTransport:
    """How a recorded stream was framed on the wire (see tests/fixtures/streams/INDEX.md).

    `event_names`: "none" (no `event:` lines), "type" (every event named after its payload's
    "type"), or "last_error" (only the last payload sent as `event: error`).
    """

    done: bool
    event_names: Literal["none", "type", "last_error"] = "none"
    comments_before: int = 0
    comment: str = "keep-alive"


FIXTURE_TRANSPORTS: dict[str, FixtureTransport] = {
    # Chat Completions, recorded as SSE with `data: [DONE]`.
    "chat--deepseek-reasoner-reasoning-then-text": FixtureTransport(done=True),
    "chat--openai-gpt-4o-parallel-tool-calls": FixtureTransport(done=True),
    "chat--groq-gpt-oss-120b-reasoning-tool-call": FixtureTransport(done=True),
    "chat--groq-gpt-oss-120b-event-error": FixtureTransport(done=False, event_names="last_error"),
    "chat--openrouter-minimax-m2-error-chunk": FixtureTransport(
        done=True, comments_before=17, comment="OPENROUTER PROCESSING"
    ),
    # Chat Completions "chunk files" (no framing kept by the source): replayed with [DONE].
    "chat--openai-gpt-4.1-nano-text": FixtureTransport(done=True),
    "chat--deepseek-reasoner-tool-call": FixtureTransport(done=True),
    "chat--xai-grok-3-mini-reasoning-tool-call": FixtureTransport(done=True),
    "chat--alibaba-qwen3-max-tool-call": FixtureTransport(done=True),
    # Responses: `event: <type>` on every event, no [DONE].
    "responses--openai-gpt-4o-text": FixtureTransport(done=False, event_names="type"),
    "responses--openai-gpt-5.5-function-call": FixtureTransport(done=False, event_names="type"),
    "responses--openai-o3-mini-reasoning-summaries": FixtureTransport(
        done=False, event_names="type"
    ),
    "responses--deepseek-v4-flash-reasoning-text-function-call": FixtureTransport(
        done=False, event_names="type"
    ),
    "responses--openai-gpt-5-nano-error-failed": FixtureTransport(done=False, event_names="type"),
}
"""Transport of every recorded stream, by file stem."""


def fixture_transport(name: str) -> FixtureTransport:
    """The transport for a fixture file stem; unknown `chat--`/`responses--` files get the
    usual framing of their protocol."""
    known = FIXTURE_TRANSPORTS.get(name)
    if known is not None:
        return known
    if name.startswith("chat--"):
        return FixtureTransport(done=True)
    if name.startswith("responses--"):
        return FixtureTransport(done=False, event_names="type")
    raise ValueError(f"unknown stream fixture {name!r}: add it to FIXTURE_TRANSPORTS")


def fixture_payloads(path: Path) -> list[str]:
    """The recorded `data:` payloads of a `.jsonl` stream file, verbatim, one per line."""
    text = Path(path).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


def fixture_reply(path: Path, *, split_every: int | None = None, delay: float = 0.0) -> SSEReply:
    """Replay a recorded stream from tests/fixtures/streams with its original framing."""
    path = Path(path)
    transport = fixture_transport(path.stem)
    payloads = fixture_payloads(path)
    names: list[str | None] | None = None
    if transport.event_names == "type":
        names = []
        for line in payloads:
            try:
                kind = json.loads(line).get("type")
            except (ValueError, AttributeError):
                kind = None
            names.append(kind if isinstance(kind, str) else None)
    elif transport.event_names == "last_error":
        names = [None] * len(payloads)
        if names:
            names[-1] = "error"
    return SSEReply(
        payloads,
        done=transport.done,
        event_names=names,
        comments_before=transport.comments_before,
        comment=transport.comment,
        delay=delay,
        split_every=split_every,
    )


__all__ = [
    "DEFAULT_USAGE",
    "FIXTURE_TRANSPORTS",
    "ErrorReply",
    "FixtureTransport",
    "HangReply",
    "RawReply",
    "Reply",
    "ReplyHandler",
    "SSEReply",
    "chat_chunk",
    "fixture_payloads",
    "fixture_reply",
    "fixture_transport",
    "text_reply",
    "tool_call_reply",
    "tool_calls_reply",
    "usage_chunk",
]
