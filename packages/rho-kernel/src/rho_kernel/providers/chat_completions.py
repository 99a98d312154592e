"""The OpenAI Chat Completions streaming client (`POST .../chat/completions`, SSE).

Decoding rules, applied to each SSE event in order:

- `data: [DONE]` ends the stream; an event named `error`, or a chunk with a non-null top-level
  `error` (even one that also has `choices`), raises `ProviderError(kind="stream")`; a chunk
  that is not a JSON object raises `ProviderError(kind="decode")`. Unknown fields are ignored.
- `choices[0].delta.content` (and `refusal`) is reply text; `delta.reasoning_content`, else
  `delta.reasoning`, is reasoning.
- `delta.tool_calls` fragments are merged by `index`: the first non-empty `id` and `name` win,
  `arguments` strings are concatenated. A fragment without `index` continues the call with the
  same id, or starts a new call when it brings a new id, or else continues the last call.
- the last non-null `finish_reason` and the last non-null `usage` are kept.

A stream that ends without `[DONE]` still gives its response, unless it carried no data at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from rho_kernel import __version__
from rho_kernel.messages import FunctionCall, ToolCall
from rho_kernel.providers.events import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    Usage,
)
from rho_kernel.providers.http import (
    RETRYABLE_STATUSES,
    build_client,
    check_response,
    error_message_from_payload,
    transport_error,
)
from rho_kernel.providers.sse import SSEEvent, SSEParser

_RETRYABLE_ERROR_CODES = frozenset(
    {"rate_limit_exceeded", "server_error", "overloaded", "overloaded_error", "timeout"}
)


@dataclass(slots=True)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return 0


def chat_usage(data: dict[str, Any]) -> Usage:
    """Convert a Chat Completions `usage` object to `Usage`."""
    prompt = _int(data.get("prompt_tokens"))
    completion = _int(data.get("completion_tokens"))
    total = _int(data.get("total_tokens")) or prompt + completion
    prompt_details = data.get("prompt_tokens_details")
    completion_details = data.get("completion_tokens_details")
    cached = _int(prompt_details.get("cached_tokens")) if isinstance(prompt_details, dict) else 0
    reasoning = (
        _int(completion_details.get("reasoning_tokens"))
        if isinstance(completion_details, dict)
        else 0
    )
    cost = data.get("cost")
    return Usage(
        input_tokens=prompt,
        output_tokens=completion,
        cached_tokens=cached,
        reasoning_tokens=reasoning,
        total_tokens=total,
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )


class ChatCompletionsService:
    """An `LlmService` for any endpoint speaking OpenAI Chat Completions with SSE streaming.

    `first_token_timeout` bounds the time from sending the request to the first SSE event and
    `idle_timeout` the gap between events (seconds; 0 disables either). Pass `client` to share
    an `httpx.AsyncClient`; otherwise the service creates one on first use and closes it in
    `aclose()`.
    """

    api = "chat_completions"

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
        self.api_key = api_key
        self.provider_name = provider_name
        self.first_token_timeout = first_token_timeout
        self.idle_timeout = idle_timeout
        self._client = client
        self._owns_client = client is None

    @property
    def _label(self) -> str:
        return self.provider_name or self.endpoint

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON request body for `request`."""
        body: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool["name"],
                        "description": tool.get("description", ""),
                        "parameters": tool.get("parameters")
                        or {"type": "object", "properties": {}},
                    },
                }
                for tool in request.tools
            ]
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.reasoning_effort is not None:
            body["reasoning_effort"] = request.reasoning_effort
        return body

    def build_headers(self) -> dict[str, str]:
        """The request headers (with `Authorization: Bearer` when an API key is set)."""
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "Accept-Encoding": "identity",
            "User-Agent": f"rho/{__version__}",
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _timeout_error(self, what: str, seconds: float) -> ProviderError:
        return ProviderError(
            f"{self._label}: {what} within {seconds:g} s from {self.endpoint}; the model may be "
            "overloaded or stuck (raise the timeout in config if this model is just slow)",
            kind="timeout",
            provider=self.provider_name,
            endpoint=self.endpoint,
            retryable=True,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send `request` and yield text/reasoning deltas, then one `ModelResponse`."""
        if self._client is None:
            self._client = build_client()
        client = self._client
        loop = asyncio.get_running_loop()
        first = self.first_token_timeout
        idle = self.idle_timeout
        deadline = loop.time() + first if first > 0 else None
        decoder = _ChatDecoder(self.provider_name, self.endpoint)
        responded = False
        try:
            async with contextlib.AsyncExitStack() as stack:
                scope = asyncio.timeout_at(deadline)
                try:
                    async with scope:
                        response = await stack.enter_async_context(
                            client.stream(
                                "POST",
                                self.endpoint,
                                json=self.build_body(request),
                                headers=self.build_headers(),
                            )
                        )
                        responded = True
                        await check_response(
                            response, endpoint=self.endpoint, provider=self.provider_name
                        )
                except TimeoutError:
                    if scope.expired():
                        raise self._timeout_error("no response", first) from None
                    raise
                chunks = response.aiter_bytes()
                stack.push_async_callback(chunks.aclose)  # type: ignore[attr-defined]
                parser = SSEParser()
                waiting_first = True
                while not decoder.done:
                    scope = asyncio.timeout_at(deadline)
                    try:
                        async with scope:
                            chunk: bytes | None = await anext(chunks)
                    except StopAsyncIteration:
                        chunk = None
                    except TimeoutError:
                        if not scope.expired():
                            raise
                        if waiting_first:
                            raise self._timeout_error("no stream data", first) from None
                        raise self._timeout_error(
                            "no stream data for too long (idle timeout)", idle
                        ) from None
                    events = parser.close() if chunk is None else parser.feed(chunk)
                    for sse in events:
                        for delta in decoder.feed(sse):
                            yield delta
                        if decoder.done:
                            break
                    if chunk is None:
                        break
                    if events:
                        waiting_first = False
                        deadline = loop.time() + idle if idle > 0 else None
        except httpx.HTTPError as exc:
            raise transport_error(
                exc, endpoint=self.endpoint, provider=self.provider_name, responded=responded
            ) from exc
        except httpx.InvalidURL as exc:
            raise transport_error(
                exc, endpoint=self.endpoint, provider=self.provider_name, responded=False
            ) from exc
        yield decoder.finish()

    async def aclose(self) -> None:
        """Close the HTTP client if this service created it."""
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None


class _ChatDecoder:
    """Accumulates Chat Completions chunks into deltas and the final response."""

    def __init__(self, provider: str, endpoint: str) -> None:
        self.provider = provider
        self.endpoint = endpoint
        self.done = False
        self.saw_data = False
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None

    @property
    def _label(self) -> str:
        return self.provider or self.endpoint

    def _decode_error(self, detail: str, data: str) -> ProviderError:
        snippet = data if len(data) <= 200 else data[:199] + "…"
        return ProviderError(
            f"{self._label}: {detail} in the stream from {self.endpoint}: {snippet!r}",
            kind="decode",
            provider=self.provider,
            endpoint=self.endpoint,
            retryable=False,
        )

    def _stream_error(self, error: Any) -> ProviderError:
        message = error_message_from_payload({"error": error}) or json.dumps(
            error, ensure_ascii=False
        )
        status: int | None = None
        code: Any = None
        if isinstance(error, dict):
            code = error.get("code")
            raw_status = error.get("status_code", error.get("status"))
            if isinstance(raw_status, int) and not isinstance(raw_status, bool):
                status = raw_status
            elif isinstance(code, int) and not isinstance(code, bool):
                status = code
        retryable = (status in RETRYABLE_STATUSES) or (
            isinstance(code, str) and code in _RETRYABLE_ERROR_CODES
        )
        return ProviderError(
            f"{self._label}: the model stream reported an error: {message}",
            kind="stream",
            provider=self.provider,
            endpoint=self.endpoint,
            retryable=retryable,
        )

    def feed(self, sse: SSEEvent) -> list[StreamEvent]:
        """Decode one SSE event; return the deltas it carries."""
        data = sse.data
        stripped = data.strip()
        if stripped == "[DONE]":
            self.done = True
            return []
        if sse.event == "error":
            try:
                payload: Any = json.loads(data)
            except ValueError:
                payload = stripped or "(no details)"
            if isinstance(payload, dict) and payload.get("error") is not None:
                payload = payload["error"]
            raise self._stream_error(payload)
        if not stripped:
            return []
        try:
            chunk = json.loads(data)
        except ValueError:
            raise self._decode_error("invalid JSON chunk", data) from None
        if not isinstance(chunk, dict):
            raise self._decode_error("a chunk that is not a JSON object", data)
        self.saw_data = True
        if chunk.get("error") is not None:
            raise self._stream_error(chunk["error"])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = chat_usage(usage)
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return []
        choice = choices[0]
        if not isinstance(choice, dict):
            return []
        out: list[StreamEvent] = []
        delta = choice.get("delta")
        if isinstance(delta, dict):
            reasoning = delta.get("reasoning_content")
            if not (isinstance(reasoning, str) and reasoning):
                reasoning = delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                self.reasoning.append(reasoning)
                out.append(ReasoningDelta(reasoning))
            for key in ("content", "refusal"):
                text = delta.get(key)
                if isinstance(text, str) and text:
                    self.text.append(text)
                    out.append(TextDelta(text))
            tool_calls = delta.get("tool_calls")
            if isinstance(tool_calls, list):
                for fragment in tool_calls:
                    if isinstance(fragment, dict):
                        self._merge_call(fragment)
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            self.finish_reason = finish
        return out

    def _merge_call(self, fragment: dict[str, Any]) -> None:
        raw_index = fragment.get("index")
        call_id = fragment.get("id")
        call_id = call_id if isinstance(call_id, str) else ""
        if isinstance(raw_index, int) and not isinstance(raw_index, bool):
            index = raw_index
        else:
            index = self._index_without_position(call_id)
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = _PartialCall()
        if call_id and not call.id:
            call.id = call_id
        function = fragment.get("function")
        if not isinstance(function, dict):
            return
        name = function.get("name")
        if isinstance(name, str) and name and not call.name:
            call.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            if arguments:
                call.arguments.append(arguments)
        elif isinstance(arguments, dict | list):
            call.arguments.append(json.dumps(arguments, ensure_ascii=False))

    def _index_without_position(self, call_id: str) -> int:
        if call_id:
            for index, call in self.calls.items():
                if call.id == call_id:
                    return index
            return max(self.calls, default=-1) + 1
        return max(self.calls, default=0)

    def finish(self) -> ModelResponse:
        """The final response (raises if the stream was empty or a tool call had no name)."""
        if not self.done and not self.saw_data:
            raise ProviderError(
                f"{self._label}: the stream from {self.endpoint} ended before any data arrived "
                "(the server closed the connection early)",
                kind="stream",
                provider=self.provider,
                endpoint=self.endpoint,
                retryable=True,
            )
        tool_calls: list[ToolCall] = []
        for index in sorted(self.calls):
            call = self.calls[index]
            if not call.name:
                raise ProviderError(
                    f"{self._label}: the model sent tool call #{index}"
                    + (f" ({call.id})" if call.id else "")
                    + " without a function name; the server's tool-call streaming is "
                    "incompatible or the response was cut off",
                    kind="decode",
                    provider=self.provider,
                    endpoint=self.endpoint,
                    retryable=False,
                )
            tool_calls.append(
                ToolCall(
                    id=call.id or f"call_{index}_{secrets.token_hex(6)}",
                    function=FunctionCall(name=call.name, arguments="".join(call.arguments)),
                )
            )
        return ModelResponse(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            tool_calls=tool_calls,
            usage=self.usage,
            finish_reason=self.finish_reason,
        )


__all__ = ["ChatCompletionsService", "chat_usage"]
