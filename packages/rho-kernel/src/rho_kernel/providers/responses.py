"""The OpenAI Responses streaming client (`POST .../responses`, SSE), used statelessly.

Requests: every turn sends the whole (fitted) conversation with `store: false` and never a
`previous_response_id`. The wire-neutral `ModelRequest.messages` (Chat Completions shaped dicts)
are rendered as follows:

- `system` (and `developer`) messages are joined with blank lines into `instructions`;
- `user` → `{"type": "message", "role": "user", "content": [{"type": "input_text", ...}]}`,
  each image part after the text as `{"type": "input_image", "image_url": "data:…"}`;
- `assistant` text → `{"type": "message", "role": "assistant",
  "content": [{"type": "output_text", ...}]}` (omitted when empty), and each of its
  `tool_calls` → `{"type": "function_call", "call_id", "name", "arguments"}`;
- `tool` → `{"type": "function_call_output", "call_id", "output"}`.

Tools are flat `{"type": "function", "name", "description", "parameters", "strict": false}`
(`strict` is sent explicitly because the Responses API documents it as defaulting to true, which
would reject ordinary, non-strict JSON schemas). `max_tokens` becomes `max_output_tokens`, and
`reasoning: {"effort", "summary": "auto"}` is sent only when `reasoning_effort` is set, and
`prompt_cache_key` only when the request's cache hints carry one (the other hints have no
place in this protocol).

Decoding rules, applied to each SSE event in order (the event type is the payload's `type`,
else the SSE `event:` name; unknown types are ignored):

- `response.output_text.delta` (and `response.refusal.delta`) is reply text. A text part that
  had no deltas takes the text of its `.done` event instead.
- `response.reasoning_summary_text.delta` and `response.reasoning_text.delta` are reasoning.
  Reasoning is one string made of parts (a summary part is `(item, summary_index)`, a raw
  reasoning part `(item, content_index)`): when a delta starts a new part and some reasoning was
  already emitted, the delta is prefixed with a blank line ("\\n\\n"). So the o3-mini recording's
  four summary parts of 460, 517, 540 and 505 chars give 2022 + 3 x 2 = 2028 chars. A part
  that had no deltas takes the text of its `.done` event (with the same separator rule).
- Function calls: `response.output_item.added` with a `function_call` item registers the call
  (its `call_id` and `name`) under the item id and its `output_index`;
  `response.function_call_arguments.delta` appends to the call found by `item_id`, else by
  `output_index`; `response.function_call_arguments.done` and `response.output_item.done` give
  the final arguments, which win over the concatenated deltas. Calls keep their stream order.
- `response.completed` and `response.incomplete` end the stream: they carry the usage and the
  status. Function calls or text found only in the final `response.output` (a server that
  sent no item events) are taken from there.
- `response.failed` raises `ProviderError(kind="stream")` with `response.error`'s code and
  message; an `error` event raises the same at once (retryable for rate-limit and server-side
  codes). A payload that is not a JSON object raises `ProviderError(kind="decode")`.
- A stream that ends (or sends `[DONE]`) without a terminal event raises a retryable
  `ProviderError(kind="stream")`: the response was cut off.
- Text and reasoning never hold a lone surrogate: half a pair split across two deltas is held
  back until its other half arrives (U+FFFD if it never does); the final text, reasoning and
  function-call ids, names and arguments are scrubbed too.

`finish_reason`: "length" when the response is incomplete for `max_output_tokens` (and for an
unknown incomplete reason), "content_filter" when incomplete for `content_filter`, otherwise
"tool_calls" when the response has function calls, otherwise "stop".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rho_kernel.providers.events import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    StreamEvent,
    Usage,
    usage_from_payload,
)
from rho_kernel.providers.sse import SSEEvent
from rho_kernel.providers.streaming import DecoderBase, SSEStreamService

REASONING_PART_SEPARATOR = "\n\n"
"""Put between two reasoning parts (summary parts or reasoning items) in the reasoning text."""


_EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def _text_of(content: Any) -> str:
    """The text of a Chat Completions `content` (a string, None, or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        return "".join(pieces)
    return ""


def _user_content(message: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """A user message's content items: its text, then each of its images."""
    content: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
    parts = message.get("content")
    for part in parts if isinstance(parts, list) else ():
        image = part.get("image_url") if isinstance(part, dict) else None
        url = image.get("url") if isinstance(image, dict) else None
        if part.get("type") == "image_url" and isinstance(url, str):
            content.append({"type": "input_image", "image_url": url})
    return content


def responses_input(messages: list[dict[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """Convert Chat Completions shaped messages to `(instructions, input items)`.

    See the module docstring for the mapping. `instructions` is None when there is no system
    message.
    """
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        text = _text_of(message.get("content"))
        if role in ("system", "developer"):
            if text:
                instructions.append(text)
        elif role == "assistant":
            if text:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": text}],
                    }
                )
            for call in message.get("tool_calls") or ():
                if not isinstance(call, dict):
                    continue
                function = call.get("function")
                function = function if isinstance(function, dict) else {}
                arguments = function.get("arguments", "")
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.get("id", ""),
                        "name": function.get("name", ""),
                        "arguments": arguments,
                    }
                )
        elif role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.get("tool_call_id") or "",
                    "output": text,
                }
            )
        else:  # "user", and anything unknown is sent as user input
            items.append(
                {"type": "message", "role": "user", "content": _user_content(message, text)}
            )
    return ("\n\n".join(instructions) if instructions else None), items


def responses_usage(data: dict[str, Any]) -> Usage:
    """Convert a Responses `usage` object to `Usage`."""
    return usage_from_payload(data, input_key="input_tokens", output_key="output_tokens")


class ResponsesService(SSEStreamService):
    """An `LlmService` for an endpoint speaking the OpenAI Responses API with SSE streaming.

    Stateless: each request carries the whole conversation and `store: false`. Timeouts,
    cancellation, client sharing and HTTP error mapping are those of `ChatCompletionsService`
    (see `SSEStreamService`); the request body and the decoding follow the module docstring.
    """

    api = "responses"

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON request body for `request`."""
        instructions, items = responses_input(request.messages)
        body: dict[str, Any] = {"model": request.model}
        if instructions is not None:
            body["instructions"] = instructions
        body["input"] = items
        body["stream"] = True
        body["store"] = False
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool.get("parameters") or dict(_EMPTY_PARAMETERS),
                    "strict": False,
                }
                for tool in request.tools
            ]
        if request.max_tokens is not None:
            body["max_output_tokens"] = request.max_tokens
        if request.reasoning_effort is not None:
            body["reasoning"] = {"effort": request.reasoning_effort, "summary": "auto"}
        if request.cache is not None and request.cache.prompt_cache_key:
            body["prompt_cache_key"] = request.cache.prompt_cache_key
        return body

    def new_decoder(self) -> ResponsesStreamDecoder:
        """A fresh Responses decoder."""
        return ResponsesStreamDecoder(self.provider_name, self.endpoint)


@dataclass(slots=True)
class _PartialCall:
    call_id: str = ""
    name: str = ""
    deltas: list[str] = field(default_factory=list)
    final: str | None = None

    @property
    def arguments(self) -> str:
        return self.final if self.final is not None else "".join(self.deltas)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


class ResponsesStreamDecoder(DecoderBase):
    """Accumulates Responses stream events into deltas and the final response (no I/O).

    Feed it the parsed SSE events of one stream in order (`feed`), stop once `done` is True,
    then call `finish()`. `provider` and `endpoint` only label error messages.
    """

    def __init__(self, provider: str, endpoint: str) -> None:
        super().__init__(provider, endpoint)
        self.calls: dict[str, _PartialCall] = {}
        self.usage: Usage | None = None
        self.status: str | None = None
        self.incomplete_reason: str | None = None
        self._terminal = False
        self._call_at: dict[int, str] = {}  # output_index -> key in self.calls
        self._text_parts: set[tuple[Any, ...]] = set()  # text parts that had deltas
        self._reasoning_parts: set[tuple[Any, ...]] = set()
        self._reasoning_part: tuple[Any, ...] | None = None

    def feed(self, sse: SSEEvent) -> list[StreamEvent]:
        """Decode one SSE event; return the deltas it carries."""
        if sse.event == "error":
            raise self._error_event(sse.data)
        event = self._decode(sse.data)
        if event is None:
            return []
        kind = event.get("type")
        if not isinstance(kind, str):
            kind = sse.event
        handler = _EVENT_HANDLERS.get(kind)
        return handler(self, event) if handler is not None else []

    def _error_event(self, data: str) -> Exception:
        """The error an SSE `error` event carries."""
        try:
            payload: Any = json.loads(data)
        except ValueError:
            payload = data.strip() or "(no details)"
        if isinstance(payload, dict) and payload.get("error") is not None:
            payload = payload["error"]
        return self._stream_error(payload, "the model stream reported an error")

    def _decode(self, data: str) -> dict[str, Any] | None:
        """The event's JSON object; None for an empty event or `[DONE]` (which ends the
        stream). Raises the decode error for anything else."""
        try:
            event = json.loads(data)
        except ValueError:
            stripped = data.strip()
            if stripped == "[DONE]":
                self.done = True
            if stripped in ("", "[DONE]"):
                return None
            raise self._decode_error("invalid JSON event", data) from None
        if not isinstance(event, dict):
            raise self._decode_error("an event that is not a JSON object", data)
        return event

    def _on_text_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        delta = event.get("delta")
        if isinstance(delta, str) and delta:
            self._text_parts.add((event.get("item_id"), event.get("content_index")))
            return self._text_delta(delta)
        return []

    def _on_text_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        # The whole text, for a part whose deltas never came.
        part = (event.get("item_id"), event.get("content_index"))
        text = event.get("text", event.get("refusal"))
        if part not in self._text_parts and isinstance(text, str) and text:
            self._text_parts.add(part)
            return self._text_delta(text)
        return []

    def _on_summary_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        key = ("summary", event.get("item_id"), event.get("summary_index"))
        return self._reasoning_delta(key, event.get("delta"))

    def _on_summary_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        key = ("summary", event.get("item_id"), event.get("summary_index"))
        return self._reasoning_done(key, event)

    def _on_reasoning_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        key = ("text", event.get("item_id"), event.get("content_index"))
        return self._reasoning_delta(key, event.get("delta"))

    def _on_reasoning_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        key = ("text", event.get("item_id"), event.get("content_index"))
        return self._reasoning_done(key, event)

    def _reasoning_done(self, key: tuple[Any, ...], event: dict[str, Any]) -> list[StreamEvent]:
        # The whole text, for a part whose deltas never came.
        if key in self._reasoning_parts:
            return []
        return self._reasoning_delta(key, event.get("text"))

    def _on_arguments_delta(self, event: dict[str, Any]) -> list[StreamEvent]:
        delta = event.get("delta")
        if isinstance(delta, str) and delta:
            self._call_for(event).deltas.append(delta)
        return []

    def _on_arguments_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        arguments = event.get("arguments")
        if isinstance(arguments, str):
            self._call_for(event).final = arguments
        return []

    def _on_item_added(self, event: dict[str, Any]) -> list[StreamEvent]:
        return self._on_output_item(event, done=False)

    def _on_item_done(self, event: dict[str, Any]) -> list[StreamEvent]:
        return self._on_output_item(event, done=True)

    def _on_output_item(self, event: dict[str, Any], *, done: bool) -> list[StreamEvent]:
        item = event.get("item")
        if isinstance(item, dict) and item.get("type") == "function_call":
            self._register_call(item, event.get("output_index"), done=done)
        return []

    def _on_completed(self, event: dict[str, Any]) -> list[StreamEvent]:
        return self._complete(event.get("response"), "response.completed")

    def _on_incomplete(self, event: dict[str, Any]) -> list[StreamEvent]:
        return self._complete(event.get("response"), "response.incomplete")

    def _on_failed(self, event: dict[str, Any]) -> list[StreamEvent]:
        response = event.get("response")
        error: Any = response.get("error") if isinstance(response, dict) else None
        if error is None:
            error = "the response failed without details"
        raise self._stream_error(error, "the response failed")

    def _on_error(self, event: dict[str, Any]) -> list[StreamEvent]:
        error = event.get("error")
        if error is None:
            error = {k: v for k, v in event.items() if k not in ("type", "sequence_number")}
        raise self._stream_error(error, "the model stream reported an error")

    def _reasoning_delta(self, key: tuple[Any, ...], delta: Any) -> list[StreamEvent]:
        if not isinstance(delta, str) or not delta:
            return []
        if key != self._reasoning_part:
            self._reasoning_part = key
            self._reasoning_parts.add(key)
            if self.reasoning:
                delta = REASONING_PART_SEPARATOR + delta
        return self._reasoning_delta_of(delta)

    def _call_for(self, event: dict[str, Any]) -> _PartialCall:
        item_id = event.get("item_id")
        if isinstance(item_id, str) and item_id in self.calls:
            return self.calls[item_id]
        index = event.get("output_index")
        if isinstance(index, int) and index in self._call_at:
            return self.calls[self._call_at[index]]
        key = item_id if isinstance(item_id, str) and item_id else f"#{index}"
        call = self.calls[key] = _PartialCall()
        if isinstance(index, int):
            self._call_at[index] = key
        return call

    def _register_call(self, item: dict[str, Any], index: Any, *, done: bool) -> None:
        item_id = item.get("id")
        key: str | None = None
        if isinstance(item_id, str) and item_id in self.calls:
            key = item_id
        elif isinstance(index, int) and index in self._call_at:
            key = self._call_at[index]
        if key is None:
            key = item_id if isinstance(item_id, str) and item_id else f"#{index}"
            call_id = _str(item.get("call_id"))
            if not (isinstance(item_id, str) and item_id) and call_id:
                key = f"call:{call_id}"
            self.calls.setdefault(key, _PartialCall())
        if isinstance(index, int):
            self._call_at[index] = key
        call = self.calls[key]
        call.call_id = call.call_id or _str(item.get("call_id"))
        call.name = call.name or _str(item.get("name"))
        arguments = item.get("arguments")
        if isinstance(arguments, dict | list):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if isinstance(arguments, str) and (done or arguments):
            if done:
                call.final = arguments
            elif not call.deltas:
                call.deltas.append(arguments)

    def _complete(self, response: Any, kind: str) -> list[StreamEvent]:
        self.done = True
        self._terminal = True
        if not isinstance(response, dict):
            self.status = "incomplete" if kind == "response.incomplete" else "completed"
            return []
        status = response.get("status")
        self.status = status if isinstance(status, str) else kind.rsplit(".", 1)[-1]
        if kind == "response.incomplete":
            self.status = "incomplete"
        details = response.get("incomplete_details")
        if isinstance(details, dict) and isinstance(details.get("reason"), str):
            self.incomplete_reason = details["reason"]
        usage = response.get("usage")
        if isinstance(usage, dict):
            self.usage = responses_usage(usage)
        return self._adopt_final_output(response.get("output"))

    def _adopt_final_output(self, output: Any) -> list[StreamEvent]:
        """Take calls and text that only the final response carries (no item events seen)."""
        if not isinstance(output, list):
            return []
        known = {call.call_id for call in self.calls.values() if call.call_id}
        texts: list[str] = []
        for index, item in enumerate(output):
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "function_call":
                item_id = item.get("id")
                if (isinstance(item_id, str) and item_id in self.calls) or (
                    _str(item.get("call_id")) in known
                ):
                    continue
                self._register_call(item, f"final-{index}", done=True)
            elif kind == "message" and not self.text:
                for part in item.get("content") or ():
                    if isinstance(part, dict) and part.get("type") in ("output_text", "refusal"):
                        text = part.get("text", part.get("refusal"))
                        if isinstance(text, str) and text:
                            texts.append(text)
        if not texts:
            return []
        return self._text_delta("".join(texts))

    def finish(self) -> ModelResponse:
        """The final response (raises if the stream ended early or a call had no name)."""
        if not self._terminal:
            raise ProviderError(
                f"{self._label}: the stream from {self.endpoint} ended before the response was "
                "complete (no response.completed event); the server closed the connection early",
                kind="stream",
                provider=self.provider,
                endpoint=self.endpoint,
                retryable=True,
            )
        tool_calls = [
            self._tool_call(position, call.call_id, call.name, call.arguments)
            for position, call in enumerate(self.calls.values())
        ]
        if self.status == "incomplete":
            finish = "content_filter" if self.incomplete_reason == "content_filter" else "length"
        elif tool_calls:
            finish = "tool_calls"
        else:
            finish = "stop"
        text, reasoning = self._final_text()
        return ModelResponse(
            text=text,
            reasoning=reasoning,
            tool_calls=tool_calls,
            usage=self.usage,
            finish_reason=finish,
        )


_Handler = Callable[[ResponsesStreamDecoder, dict[str, Any]], list[StreamEvent]]
#: What each Responses event type does; other types carry nothing rho uses.
_EVENT_HANDLERS: dict[str, _Handler] = {
    "response.output_text.delta": ResponsesStreamDecoder._on_text_delta,
    "response.refusal.delta": ResponsesStreamDecoder._on_text_delta,
    "response.output_text.done": ResponsesStreamDecoder._on_text_done,
    "response.refusal.done": ResponsesStreamDecoder._on_text_done,
    "response.reasoning_summary_text.delta": ResponsesStreamDecoder._on_summary_delta,
    "response.reasoning_summary_text.done": ResponsesStreamDecoder._on_summary_done,
    "response.reasoning_text.delta": ResponsesStreamDecoder._on_reasoning_delta,
    "response.reasoning_text.done": ResponsesStreamDecoder._on_reasoning_done,
    "response.function_call_arguments.delta": ResponsesStreamDecoder._on_arguments_delta,
    "response.function_call_arguments.done": ResponsesStreamDecoder._on_arguments_done,
    "response.output_item.added": ResponsesStreamDecoder._on_item_added,
    "response.output_item.done": ResponsesStreamDecoder._on_item_done,
    "response.completed": ResponsesStreamDecoder._on_completed,
    "response.incomplete": ResponsesStreamDecoder._on_incomplete,
    "response.failed": ResponsesStreamDecoder._on_failed,
    "error": ResponsesStreamDecoder._on_error,
}


__all__ = [
    "REASONING_PART_SEPARATOR",
    "ResponsesService",
    "ResponsesStreamDecoder",
    "responses_input",
    "responses_usage",
]
