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
- text and reasoning never hold a lone surrogate: half a pair split across two chunks is held
  back until its other half arrives (U+FFFD if it never does); the final text, reasoning and
  tool-call ids, names and arguments are scrubbed too.

A stream is complete when it sent `[DONE]` or a `finish_reason`. One that ends with neither
was cut off: a retryable `ProviderError(kind="stream")`, as is one that carried no data at all.

The HTTP side (request, timeouts, cancellation, error mapping) lives in
`providers.streaming.SSEStreamService`, which the Responses service shares; the decoding lives in `ChatStreamDecoder`, a pure class fed parsed
SSE events (no network), so it can be tested and benchmarked on its own.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field
from typing import Any

from rho_kernel.providers.cache_hints import Breakpoints
from rho_kernel.providers.events import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    StreamEvent,
    Usage,
    usage_from_payload,
)
from rho_kernel.providers.sse import SSEEvent
from rho_kernel.providers.streaming import DecoderBase, SSEStreamService, StreamDecoder


@dataclass(slots=True)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def chat_usage(data: dict[str, Any]) -> Usage:
    """Convert a Chat Completions `usage` object to `Usage`."""
    return usage_from_payload(data, input_key="prompt_tokens", output_key="completion_tokens")


def _wire_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """One tool definition as Chat Completions takes it."""
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
        },
    }


class ChatCompletionsService(SSEStreamService):
    """An `LlmService` for any endpoint speaking OpenAI Chat Completions with SSE streaming.

    `first_token_timeout` bounds the time from sending the request to the first SSE event and
    `idle_timeout` the gap between events (seconds; 0 disables either). Pass `client` to share
    an `httpx.AsyncClient`; otherwise the service creates one on first use and closes it in
    `aclose()`.
    """

    api = "chat_completions"
    #: Marks the messages of the requests that ask for breakpoints (made on first use).
    _breakpoints: Breakpoints | None = None
    #: The last request's tool schemas and their wire form, reused while the schemas are the
    #: same objects, so that the request encoder reuses their JSON too (`request_json`).
    _tools_sent: tuple[list[Any], list[dict[str, Any]]] | None = None

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON request body for `request`.

        Its cache hints (`request.cache`) become `prompt_cache_key` and `session_id` at the
        top level and, when it asks for breakpoints, `cache_control` on the text part of the
        messages `cache_hints.breakpoint_positions` chooses (a text content becomes one text
        part for that).
        """
        hints = request.cache
        messages = request.messages
        if hints is not None and hints.breakpoints:
            if self._breakpoints is None:
                self._breakpoints = Breakpoints()
            messages = self._breakpoints.apply(messages)
        body: dict[str, Any] = {
            "model": request.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = self._wire_tools(request.tools)
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.reasoning_effort is not None:
            body["reasoning_effort"] = request.reasoning_effort
        if hints is not None and hints.prompt_cache_key:
            body["prompt_cache_key"] = hints.prompt_cache_key
        if hints is not None and hints.session_id:
            body["session_id"] = hints.session_id
        return body

    def _wire_tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`tools` as Chat Completions takes them: the same dicts as for the last request
        where its schemas are the same objects (they are read-only once sent)."""
        sent = self._tools_sent
        same = sent is not None and len(sent[0]) == len(tools)
        if sent is not None and same and all(map(operator.is_, sent[0], tools)):
            return sent[1]
        wire = [_wire_tool(tool) for tool in tools]
        self._tools_sent = (list(tools), wire)
        return wire

    def new_decoder(self) -> ChatStreamDecoder:
        """A fresh Chat Completions decoder."""
        return ChatStreamDecoder(self.provider_name, self.endpoint)


class ChatStreamDecoder(DecoderBase):
    """Accumulates Chat Completions chunks into deltas and the final response (no I/O).

    Feed it the parsed SSE events of one stream in order (`feed`), stop once `done` is True,
    then call `finish()`. `provider` and `endpoint` only label error messages.
    """

    def __init__(self, provider: str, endpoint: str) -> None:
        super().__init__(provider, endpoint)
        self.saw_data = False
        self.calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None

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
            raise self._stream_error(payload, "the model stream reported an error")
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
            raise self._stream_error(chunk["error"], "the model stream reported an error")
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
                out += self._reasoning_delta_of(reasoning)
            for key in ("content", "refusal"):
                text = delta.get(key)
                if isinstance(text, str) and text:
                    out += self._text_delta(text)
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
        """The final response (raises if the stream was cut off or a tool call had no name)."""
        if not self.done and self.finish_reason is None:
            what = (
                "ended before any data arrived"
                if not self.saw_data
                else "was cut off (no finish_reason and no [DONE])"
            )
            raise ProviderError(
                f"{self._label}: the stream from {self.endpoint} {what}; the server closed "
                "the connection early",
                kind="stream",
                provider=self.provider,
                endpoint=self.endpoint,
                retryable=True,
            )
        tool_calls = [
            self._tool_call(index, call.id, call.name, "".join(call.arguments))
            for index, call in sorted(self.calls.items())
        ]
        text, reasoning = self._final_text()
        return ModelResponse(
            text=text,
            reasoning=reasoning,
            tool_calls=tool_calls,
            usage=self.usage,
            finish_reason=self.finish_reason,
        )


__all__ = [
    "ChatCompletionsService",
    "ChatStreamDecoder",
    "SSEStreamService",
    "StreamDecoder",
    "chat_usage",
]
