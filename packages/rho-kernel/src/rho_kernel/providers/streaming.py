"""The HTTP half shared by streaming protocol services: POST JSON, decode the SSE reply.

A protocol contributes a body builder and a `StreamDecoder` (a pure class fed parsed SSE
events); `SSEStreamService` does the request, timeouts, cancellation and error mapping.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Any, Protocol

import httpx

from rho_kernel.encoding import scrub_surrogates
from rho_kernel.messages import FunctionCall, ToolCall
from rho_kernel.providers.drain import ResponseDrains
from rho_kernel.providers.events import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
)
from rho_kernel.providers.http import build_client, check_response, stream_error, transport_error
from rho_kernel.providers.request_json import RequestEncoder
from rho_kernel.providers.sse import SSEEvent, SSEParser
from rho_kernel.providers.surrogates import SurrogateJoiner
from rho_kernel.providers.urls import mask_url
from rho_kernel.version import rho_version


class StreamDecoder(Protocol):
    """Turns the SSE events of one response into deltas and the final `ModelResponse`.

    `feed` decodes one event (raising `ProviderError` for in-band errors and malformed data),
    `done` becomes True once the stream's terminal event was seen (nothing after it is read),
    and `finish` builds the response when the stream is over. A decoder may also have
    `flush() -> list[StreamEvent]`, called once before `finish`, for deltas it held back
    (`DecoderBase` holds half a surrogate pair until its other half arrives).
    """

    done: bool

    def feed(self, sse: SSEEvent) -> list[StreamEvent]: ...

    def finish(self) -> ModelResponse: ...


class _CallClock:
    """One model call's deadline: the first-token timeout until the stream's first event,
    then the idle timeout after each (0 disables either); and whether a response came."""

    def __init__(self, first: float, idle: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._idle = idle
        self.deadline: float | None = self._loop.time() + first if first > 0 else None
        self.waiting_first = True
        self.responded = False

    def heard(self) -> None:
        """The stream sent events: the idle timeout starts again."""
        self.waiting_first = False
        self.deadline = self._loop.time() + self._idle if self._idle > 0 else None


class SSEStreamService:
    """The HTTP half of a streaming protocol service: POST a JSON body, decode the SSE reply.

    Subclasses provide `api`, `build_body(request)` and `new_decoder()`. `first_token_timeout`
    bounds the time from sending the request to the first SSE event and `idle_timeout` the gap
    between events (seconds; 0 disables either). Pass `client` to share an `httpx.AsyncClient`;
    otherwise the service creates one on first use and closes it in `aclose()`.
    """

    api = ""

    def __init__(
        self,
        endpoint: str,
        api_key: str | None,
        provider_name: str,
        *,
        first_token_timeout: float = 0,
        idle_timeout: float = 0,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.endpoint = endpoint
        #: The endpoint as error messages show it (credentials masked).
        self.shown_endpoint = mask_url(endpoint)
        self.api_key = api_key
        self.provider_name = provider_name
        self.first_token_timeout = first_token_timeout
        self.idle_timeout = idle_timeout
        self._client = client
        self._owns_client = client is None
        self._encoder = RequestEncoder()
        self._drains = ResponseDrains()

    @property
    def _label(self) -> str:
        return self.provider_name or self.shown_endpoint

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON request body for `request` (protocol specific)."""
        raise NotImplementedError

    def new_decoder(self) -> StreamDecoder:
        """A fresh decoder for one response stream (protocol specific)."""
        raise NotImplementedError

    def build_headers(self) -> dict[str, str]:
        """The request headers (with `Authorization: Bearer` when an API key is set)."""
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "Accept-Encoding": "identity",
            "User-Agent": f"rho/{rho_version()}",
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _timeout_error(self, what: str, seconds: float) -> ProviderError:
        return ProviderError(
            f"{self._label}: {what} within {seconds:g} s from {self.shown_endpoint}; the model "
            "may be overloaded or stuck (raise the timeout in config if this model is just slow)",
            kind="timeout",
            provider=self.provider_name,
            endpoint=self.shown_endpoint,
            retryable=True,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send `request` and yield text/reasoning deltas, then one `ModelResponse`."""
        call = _CallClock(self.first_token_timeout, self.idle_timeout)
        decoder = self.new_decoder()
        try:
            async with contextlib.AsyncExitStack() as stack:
                response = await self._open(stack, self.build_body(request), call)
                chunks = response.aiter_bytes()
                stack.push_async_callback(chunks.aclose)  # type: ignore[attr-defined]
                parser = SSEParser()
                ended = False
                while not decoder.done:
                    chunk = await self._next_chunk(chunks, call)
                    ended = chunk is None
                    events = parser.close() if chunk is None else parser.feed(chunk)
                    for sse in events:
                        for delta in decoder.feed(sse):
                            yield delta
                        if decoder.done:
                            break
                    if ended:
                        break
                    if events:
                        call.heard()
                if not ended:  # the body may go on past the terminal event: read it aside
                    self._drains.add(chunks, stack.pop_all())
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            responded = call.responded and isinstance(exc, httpx.HTTPError)
            raise transport_error(
                exc, endpoint=self.endpoint, provider=self.provider_name, responded=responded
            ) from exc
        flush = getattr(decoder, "flush", None)
        tail: list[StreamEvent] = flush() if flush is not None else []
        final = decoder.finish()
        for delta in tail:
            yield delta
        yield final

    async def _open(
        self, stack: contextlib.AsyncExitStack, body: dict[str, Any], call: _CallClock
    ) -> httpx.Response:
        """POST `body` and return the checked response, its headers read within the
        first-token timeout."""
        if self._client is None:
            self._client = build_client(endpoints=(self.endpoint,))
        scope = asyncio.timeout_at(call.deadline)
        try:
            async with scope:
                response = await stack.enter_async_context(
                    self._client.stream(
                        "POST",
                        self.endpoint,
                        content=self._encoder.encode(body),
                        headers=self.build_headers(),
                    )
                )
                call.responded = True
                await check_response(response, endpoint=self.endpoint, provider=self.provider_name)
        except TimeoutError:
            if scope.expired():
                raise self._timeout_error("no response", self.first_token_timeout) from None
            raise
        return response

    async def _next_chunk(self, chunks: AsyncIterator[bytes], call: _CallClock) -> bytes | None:
        """The next chunk of the body (None at its end) before the call's deadline."""
        scope = asyncio.timeout_at(call.deadline)
        try:
            async with scope:
                return await anext(chunks)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            if not scope.expired():
                raise
            if call.waiting_first:
                raise self._timeout_error("no stream data", self.first_token_timeout) from None
            raise self._timeout_error(
                "no stream data for too long (idle timeout)", self.idle_timeout
            ) from None

    async def settle(self) -> None:
        """Wait until the ends of the finished responses have been read (each one's
        connection is then back in the client's pool, or closed)."""
        await self._drains.settle()

    async def aclose(self) -> None:
        """Close the HTTP client if this service created it."""
        await self._drains.cancel()
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None


class DecoderBase:
    """What every stream decoder shares: its labels, the two kinds of stream failure, and
    the reply and reasoning text, emitted without lone surrogates.

    Subclasses pass each text or reasoning piece through `_text_delta`/`_reasoning_delta_of`,
    which hold back a trailing high surrogate until the next piece joins it; `flush()` gives
    what is still held (as U+FFFD) when the stream ends.
    """

    def __init__(self, provider: str, endpoint: str) -> None:
        self.provider = provider
        self.endpoint = mask_url(endpoint)  # only ever shown in messages
        self.done = False
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self._text_joiner = SurrogateJoiner()
        self._reasoning_joiner = SurrogateJoiner()

    def _text_delta(self, piece: str) -> list[StreamEvent]:
        """Record a piece of reply text; the `TextDelta` to emit now (none if all held)."""
        text = self._text_joiner.push(piece)
        if not text:
            return []
        self.text.append(text)
        return [TextDelta(text)]

    def _reasoning_delta_of(self, piece: str) -> list[StreamEvent]:
        """Record a piece of reasoning; the `ReasoningDelta` to emit now (none if all held)."""
        text = self._reasoning_joiner.push(piece)
        if not text:
            return []
        self.reasoning.append(text)
        return [ReasoningDelta(text)]

    def flush(self) -> list[StreamEvent]:
        """The deltas still held at the end of the stream (a lone high surrogate → U+FFFD)."""
        out: list[StreamEvent] = []
        reasoning = self._reasoning_joiner.flush()
        if reasoning:
            self.reasoning.append(reasoning)
            out.append(ReasoningDelta(reasoning))
        text = self._text_joiner.flush()
        if text:
            self.text.append(text)
            out.append(TextDelta(text))
        return out

    def _final_text(self) -> tuple[str, str]:
        """The whole reply text and reasoning, scrubbed of any surrogate left."""
        return scrub_surrogates("".join(self.text)), scrub_surrogates("".join(self.reasoning))

    @property
    def _label(self) -> str:
        return self.provider or self.endpoint

    def _decode_error(self, detail: str, data: str) -> ProviderError:
        """A malformed event (`kind="decode"`, not retryable), quoting the start of its data."""
        snippet = data if len(data) <= 200 else data[:199] + "…"
        return ProviderError(
            f"{self._label}: {detail} in the stream from {self.endpoint}: {snippet!r}",
            kind="decode",
            provider=self.provider,
            endpoint=self.endpoint,
            retryable=False,
        )

    def _tool_call(self, position: int, call_id: str, name: str, arguments: str) -> ToolCall:
        """A finished tool call; one without a name is a decode error (never a nameless call)."""
        if not name:
            raise ProviderError(
                f"{self._label}: the model sent tool call #{position}"
                + (f" ({call_id})" if call_id else "")
                + " without a function name; the server's tool-call streaming is "
                "incompatible or the response was cut off",
                kind="decode",
                provider=self.provider,
                endpoint=self.endpoint,
                retryable=False,
            )
        return ToolCall(
            id=scrub_surrogates(call_id) or f"call_{position}_{secrets.token_hex(6)}",
            function=FunctionCall(
                name=scrub_surrogates(name), arguments=scrub_surrogates(arguments)
            ),
        )

    def _stream_error(self, error: Any, what: str) -> ProviderError:
        """An error object the provider sent inside the stream."""
        return stream_error(
            error, label=self._label, what=what, provider=self.provider, endpoint=self.endpoint
        )


__all__ = ["DecoderBase", "SSEStreamService", "StreamDecoder"]
