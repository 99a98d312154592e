"""ResponsesService against the scripted server: recorded streams, request shape, decoding
edge cases, HTTP errors, timeouts and cancellation."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.providers.events import (
    ModelResponse,
    ProviderError,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    Usage,
)
from rho_kernel.providers.plugin import responses_factory, rho_register_provider_services
from rho_kernel.providers.responses import (
    REASONING_PART_SEPARATOR,
    ResponsesService,
    ResponsesStreamDecoder,
    responses_input,
)
from rho_kernel.providers.sse import SSEParser
from rho_kernel.testing.replies import (
    ErrorReply,
    HangReply,
    Reply,
    SSEReply,
    fixture_payloads,
    fixture_reply,
)
from rho_kernel.testing.server import ScriptedServer
from rho_kernel.testing.streams import collect_stream, model_request

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


async def run_reply(reply: Reply, **service_args: Any) -> tuple[list[StreamEvent], ModelResponse]:
    with ScriptedServer([reply]) as server:
        service = ResponsesService(server.responses_url, None, "prov", **service_args)
        try:
            return await asyncio.wait_for(collect_stream(service), 10)
        finally:
            await service.aclose()


async def run_error(reply: Reply, **service_args: Any) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await run_reply(reply, **service_args)
    return info.value


def stream(*events: dict[str, Any], done: bool = False, **kwargs: Any) -> SSEReply:
    """A Responses SSE reply: `event: <type>` on every event, no [DONE]."""
    return SSEReply(list(events), event_names=[e.get("type") for e in events], done=done, **kwargs)


def completed(status: str = "completed", **response: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "resp_1", "status": status, "output": [], "usage": None}
    body.update(response)
    kind = "response.incomplete" if status == "incomplete" else "response.completed"
    return {"type": kind, "response": body}


def text_delta(delta: str, item: str = "msg_1", index: int = 0) -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "item_id": item,
        "output_index": index,
        "content_index": 0,
        "delta": delta,
    }


def call_added(item: str, call_id: str, name: str, index: int) -> dict[str, Any]:
    return {
        "type": "response.output_item.added",
        "output_index": index,
        "item": {
            "type": "function_call",
            "id": item,
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        },
    }


def args_delta(delta: str, item: str | None, index: int) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "response.function_call_arguments.delta",
        "output_index": index,
        "delta": delta,
    }
    if item is not None:
        event["item_id"] = item
    return event


# --- recorded streams -------------------------------------------------------------------------

O3_PARTS = [460, 517, 540, 505]


@dataclass
class Expected:
    text_sha: str = EMPTY_SHA
    text_len: int = 0
    text_start: str = ""
    reasoning: str | None = None  # exact, when short
    reasoning_len: int = 0
    reasoning_start: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    finish: str | None = None
    usage: Usage | None = None
    error: tuple[str, ...] = ()


EXPECTED: dict[str, Expected] = {
    "responses--openai-gpt-4o-text": Expected(
        text_sha="a1b7eb2ee7a6aded8dda4e6cf30826f5afffb28a5597ee9389e91eb326d4e319",
        text_len=31,
        text_start="The capital of France is Paris.",
        finish="stop",
        usage=Usage(input_tokens=278, output_tokens=9, total_tokens=287),
    ),
    "responses--openai-gpt-5.5-function-call": Expected(
        calls=[("call_sVidsfFJ6zlzRpelrPkTPlpd", "multiply", '{"a":1231,"b":2331}')],
        finish="tool_calls",
        usage=Usage(input_tokens=58, output_tokens=23, total_tokens=81),
    ),
    "responses--openai-o3-mini-reasoning-summaries": Expected(
        text_sha="4242cea70d53d7d1eb50d239ff4eaa73c101b72b1198b763679653eaec7fd88b",
        text_len=1251,
        text_start="I'm not a road safety professional, but here are some generally accepted guideli",
        # 4 summary parts joined with a blank line: 2022 chars of summary + 3 separators.
        reasoning_len=sum(O3_PARTS) + 2 * (len(O3_PARTS) - 1),
        reasoning_start="**Providing street crossing instructions**\n\nThe user is asking how to cross the ",
        finish="stop",
        usage=Usage(input_tokens=13, output_tokens=1680, total_tokens=1693, reasoning_tokens=1408),
    ),
    "responses--deepseek-v4-flash-reasoning-text-function-call": Expected(
        reasoning="The user asks about temperature in Tokyo. I'll call the tool.",
        reasoning_len=61,
        reasoning_start="The user asks about temperature in Tokyo. I'll call the tool.",
        calls=[("call_00_xjY8Z2BvSlzgEmmw0DtH0464", "get_temperature", '{"city": "Tokyo"}')],
        finish="tool_calls",
        usage=Usage(
            input_tokens=366,
            output_tokens=59,
            total_tokens=425,
            reasoning_tokens=14,
            cached_tokens=256,
        ),
    ),
    "responses--openai-gpt-5-nano-error-failed": Expected(
        error=("insufficient_quota", "You exceeded your current quota")
    ),
}


def test_every_responses_fixture_has_an_expectation() -> None:
    names = {path.stem for path in STREAMS.glob("responses--*.jsonl")}
    assert names == set(EXPECTED)


async def decode_fixture(
    name: str, split_every: int | None
) -> tuple[list[StreamEvent], ModelResponse | ProviderError]:
    reply = fixture_reply(STREAMS / f"{name}.jsonl", split_every=split_every)
    events: list[StreamEvent] = []
    with ScriptedServer([reply]) as server:
        service = ResponsesService(server.responses_url, "sk", "prov")
        try:
            async for event in service.stream(model_request()):
                events.append(event)
        except ProviderError as exc:
            return events, exc
        finally:
            await service.aclose()
    final = events.pop()
    assert isinstance(final, ModelResponse)
    return events, final


@pytest.mark.parametrize("split_every", [None, 1, 7, 4096], ids=lambda v: f"split={v}")
@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_responses_stream(name: str, split_every: int | None) -> None:
    expected = EXPECTED[name]
    events, result = await asyncio.wait_for(decode_fixture(name, split_every), 30)
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert hashlib.sha256(text.encode()).hexdigest() == expected.text_sha
    assert len(reasoning) == expected.reasoning_len
    assert reasoning[:80] == expected.reasoning_start[:80]
    if expected.reasoning is not None:
        assert reasoning == expected.reasoning
    if expected.error:
        assert isinstance(result, ProviderError)
        assert result.kind == "stream"
        assert not result.retryable
        assert result.provider == "prov"
        assert "prov" in result.message
        for needle in expected.error:
            assert needle in result.message
        return
    assert isinstance(result, ModelResponse)
    assert result.text == text
    assert len(result.text) == expected.text_len
    assert result.text[:80] == expected.text_start[:80]
    assert result.reasoning == reasoning
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == expected.calls
    assert result.finish_reason == expected.finish
    assert result.usage == expected.usage


async def test_o3_mini_summary_parts_are_joined_with_a_blank_line() -> None:
    payloads = [
        json.loads(line)
        for line in fixture_payloads(
            STREAMS / "responses--openai-o3-mini-reasoning-summaries.jsonl"
        )
    ]
    parts = [p["text"] for p in payloads if p["type"] == "response.reasoning_summary_text.done"]
    assert [len(part) for part in parts] == O3_PARTS
    events, final = await asyncio.wait_for(
        decode_fixture("responses--openai-o3-mini-reasoning-summaries", None), 30
    )
    assert isinstance(final, ModelResponse)
    assert final.reasoning == REASONING_PART_SEPARATOR.join(parts)
    assert len(final.reasoning) == 2022 + 6
    # The separator travels at the start of the first delta of each new part.
    starts = [e.text for e in events if isinstance(e, ReasoningDelta) and e.text.startswith("\n\n")]
    assert len(starts) == 3


async def test_failed_event_alone_raises_with_the_response_error() -> None:
    payloads = fixture_payloads(STREAMS / "responses--openai-gpt-5-nano-error-failed.jsonl")
    without_error_event = [p for p in payloads if json.loads(p)["type"] != "error"]
    names = [json.loads(p)["type"] for p in without_error_event]
    error = await run_error(SSEReply(without_error_event, event_names=names, done=False))
    assert error.kind == "stream"
    assert "insufficient_quota" in error.message
    assert "the response failed" in error.message
    assert not error.retryable


def test_decoder_is_usable_without_a_network() -> None:
    reply = fixture_reply(STREAMS / "responses--openai-gpt-4o-text.jsonl")
    parser = SSEParser()
    decoder = ResponsesStreamDecoder("prov", "http://x")
    deltas: list[StreamEvent] = []
    for sse in parser.feed(reply.body()) + parser.close():
        deltas.extend(decoder.feed(sse))
        if decoder.done:
            break
    assert "".join(d.text for d in deltas) == "The capital of France is Paris."
    assert decoder.finish().finish_reason == "stop"


# --- request shape ----------------------------------------------------------------------------

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are rho."},
    {"role": "system", "content": "Project rules."},
    {"role": "user", "content": "Read a.txt"},
    {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
            }
        ],
    },
    {"role": "tool", "content": "hello", "tool_call_id": "call_1"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_2", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            {"id": "call_3", "type": "function", "function": {"name": "pwd", "arguments": ""}},
        ],
    },
    {"role": "tool", "content": "a.txt", "tool_call_id": "call_2"},
    {"role": "tool", "content": [{"type": "text", "text": "/w"}], "tool_call_id": "call_3"},
    {"role": "assistant", "content": "It says hello."},
    {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
]

EXPECTED_INPUT: list[dict[str, Any]] = [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Read a.txt"}]},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Let me look."}],
    },
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read_file",
        "arguments": '{"path": "a.txt"}',
    },
    {"type": "function_call_output", "call_id": "call_1", "output": "hello"},
    {"type": "function_call", "call_id": "call_2", "name": "ls", "arguments": "{}"},
    {"type": "function_call", "call_id": "call_3", "name": "pwd", "arguments": ""},
    {"type": "function_call_output", "call_id": "call_2", "output": "a.txt"},
    {"type": "function_call_output", "call_id": "call_3", "output": "/w"},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "It says hello."}],
    },
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "thanks"}]},
]


def test_responses_input_conversion() -> None:
    instructions, items = responses_input(CONVERSATION)
    assert instructions == "You are rho.\n\nProject rules."
    assert items == EXPECTED_INPUT
    assert responses_input([{"role": "user", "content": "x"}])[0] is None


async def test_request_body_and_headers() -> None:
    tools = [
        {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
        {"name": "pwd"},
    ]
    reply = stream(text_delta("ok"), completed())
    with ScriptedServer([reply]) as server:
        service = ResponsesService(server.responses_url, "sk-test", "prov")
        try:
            req = model_request(
                model="gpt-5",
                messages=CONVERSATION,
                tools=tools,
                max_tokens=123,
                reasoning_effort="medium",
            )
            _, final = await collect_stream(service, req)
        finally:
            await service.aclose()
        [recorded] = server.requests
    assert final.text == "ok"
    assert recorded.method == "POST"
    assert recorded.path == "/v1/responses"
    assert recorded.headers["authorization"] == "Bearer sk-test"
    assert recorded.headers["content-type"] == "application/json"
    assert recorded.headers["accept"] == "text/event-stream"
    assert recorded.json == {
        "model": "gpt-5",
        "instructions": "You are rho.\n\nProject rules.",
        "input": EXPECTED_INPUT,
        "stream": True,
        "store": False,
        "tools": [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file",
                "parameters": tools[0]["parameters"],
                "strict": False,
            },
            {
                "type": "function",
                "name": "pwd",
                "description": "",
                "parameters": {"type": "object", "properties": {}},
                "strict": False,
            },
        ],
        "max_output_tokens": 123,
        "reasoning": {"effort": "medium", "summary": "auto"},
    }
    assert "previous_response_id" not in recorded.json


async def test_minimal_request_has_no_optional_fields_and_no_auth() -> None:
    with ScriptedServer([stream(completed())]) as server:
        service = ResponsesService(server.responses_url, None, "prov")
        try:
            await collect_stream(service)
        finally:
            await service.aclose()
        [recorded] = server.requests
    assert "authorization" not in recorded.headers
    assert recorded.json == {
        "model": "m",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
        ],
        "stream": True,
        "store": False,
    }


# --- decoding ---------------------------------------------------------------------------------


async def test_incomplete_for_max_output_tokens_is_length() -> None:
    reply = stream(
        text_delta("partial"),
        completed(
            "incomplete",
            incomplete_details={"reason": "max_output_tokens"},
            usage={"input_tokens": 5, "output_tokens": 16, "total_tokens": 21},
        ),
    )
    events, final = await run_reply(reply)
    assert events == [TextDelta("partial")]
    assert final.text == "partial"
    assert final.finish_reason == "length"
    assert final.usage == Usage(input_tokens=5, output_tokens=16, total_tokens=21)


async def test_incomplete_for_content_filter() -> None:
    reply = stream(completed("incomplete", incomplete_details={"reason": "content_filter"}))
    _, final = await run_reply(reply)
    assert final.finish_reason == "content_filter"


async def test_stream_without_terminal_event_is_a_retryable_stream_error() -> None:
    error = await run_error(stream(text_delta("cut")))
    assert error.kind == "stream"
    assert error.retryable
    assert "response.completed" in error.message and "prov" in error.message


async def test_done_sentinel_without_terminal_event_is_an_error() -> None:
    error = await run_error(stream(text_delta("cut"), done=True))
    assert error.kind == "stream" and error.retryable


async def test_nothing_after_the_terminal_event_is_read() -> None:
    reply = SSEReply([text_delta("a"), completed(), "not json"], done=False)
    _, final = await run_reply(reply)
    assert final.text == "a"


async def test_malformed_json_is_a_decode_error() -> None:
    error = await run_error(SSEReply([text_delta("a"), '{"type": "response.output_te'], done=False))
    assert error.kind == "decode"
    assert not error.retryable
    assert "invalid JSON" in error.message


async def test_non_object_event_is_a_decode_error() -> None:
    error = await run_error(SSEReply(["[1, 2]"], done=False))
    assert error.kind == "decode"


async def test_rate_limit_error_event_is_retryable() -> None:
    event = {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None}
    error = await run_error(stream(event))
    assert error.kind == "stream"
    assert error.retryable
    assert "Slow down" in error.message and "rate_limit_exceeded" in error.message


async def test_server_error_in_failed_response_is_retryable() -> None:
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "oops"}},
    }
    error = await run_error(stream(text_delta("a"), failed))
    assert error.kind == "stream" and error.retryable
    assert "oops" in error.message


async def test_error_event_with_plain_text_data() -> None:
    error = await run_error(SSEReply(["upstream exploded"], event_names=["error"], done=False))
    assert error.kind == "stream"
    assert "upstream exploded" in error.message


async def test_unknown_events_and_fields_are_ignored() -> None:
    reply = stream(
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {"type": "response.web_search_call.searching", "item_id": "x", "output_index": 0},
        {"type": "response.output_text.annotation.added", "annotation": {"url": "u"}},
        {**text_delta("hi"), "logprobs": [], "obfuscation": "zz"},
        {"type": "keepalive"},
        completed(extra={"anything": 1}),
    )
    events, final = await run_reply(reply)
    assert events == [TextDelta("hi")]
    assert final.text == "hi" and final.finish_reason == "stop" and final.usage is None


async def test_done_text_is_used_when_a_part_had_no_deltas() -> None:
    done = {
        "type": "response.output_text.done",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "text": "whole",
    }
    events, final = await run_reply(stream(done, completed()))
    assert events == [TextDelta("whole")]
    assert final.text == "whole"


async def test_done_text_does_not_duplicate_deltas() -> None:
    done = {**text_delta(""), "type": "response.output_text.done", "text": "ab"}
    del done["delta"]
    _, final = await run_reply(stream(text_delta("a"), text_delta("b"), done, completed()))
    assert final.text == "ab"


async def test_function_call_arguments_from_deltas_without_done_events() -> None:
    reply = stream(
        call_added("fc_1", "call_a", "read", 0),
        args_delta('{"path"', "fc_1", 0),
        args_delta(': "x"}', "fc_1", 0),
        completed(),
    )
    _, final = await run_reply(reply)
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("call_a", "read", '{"path": "x"}')
    ]
    assert final.finish_reason == "tool_calls"


async def test_done_arguments_win_over_deltas() -> None:
    reply = stream(
        call_added("fc_1", "call_a", "read", 0),
        args_delta('{"pa', "fc_1", 0),
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 0,
            "arguments": '{"path": "y"}',
        },
        completed(),
    )
    _, final = await run_reply(reply)
    assert final.tool_calls[0].arguments == '{"path": "y"}'


async def test_interleaved_parallel_calls_correlate_by_item_id_and_output_index() -> None:
    reply = stream(
        text_delta("Two calls.", index=0),
        call_added("fc_1", "call_a", "first", 1),
        call_added("fc_2", "call_b", "second", 2),
        args_delta('{"n":', "fc_2", 2),
        args_delta('{"n":', None, 1),  # no item_id: correlated by output_index
        args_delta(" 1}", "fc_1", 1),
        args_delta(" 2}", None, 2),
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": {
                "type": "function_call",
                "id": "fc_2",
                "call_id": "call_b",
                "name": "second",
                "arguments": '{"n": 2}',
            },
        },
        completed(),
    )
    _, final = await run_reply(reply)
    assert final.text == "Two calls."
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("call_a", "first", '{"n": 1}'),
        ("call_b", "second", '{"n": 2}'),
    ]
    assert final.finish_reason == "tool_calls"


async def test_calls_and_text_only_in_the_final_response_are_adopted() -> None:
    output = [
        {"type": "message", "content": [{"type": "output_text", "text": "hello"}]},
        {
            "type": "function_call",
            "id": "fc_9",
            "call_id": "call_z",
            "name": "f",
            "arguments": "{}",
        },
    ]
    events, final = await run_reply(stream(completed(output=output)))
    assert events == [TextDelta("hello")]
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [("call_z", "f", "{}")]


async def test_final_output_does_not_duplicate_streamed_calls() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_a",
        "name": "f",
        "arguments": "{}",
    }
    reply = stream(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        completed(output=[item]),
    )
    _, final = await run_reply(reply)
    assert len(final.tool_calls) == 1


async def test_nameless_call_is_a_decode_error() -> None:
    error = await run_error(stream(args_delta("{}", "fc_1", 0), completed()))
    assert error.kind == "decode"
    assert "without a function name" in error.message


async def test_reasoning_parts_from_two_items_are_separated() -> None:
    def summary(item: str, index: int, delta: str) -> dict[str, Any]:
        return {
            "type": "response.reasoning_summary_text.delta",
            "item_id": item,
            "output_index": 0,
            "summary_index": index,
            "delta": delta,
        }

    raw = {
        "type": "response.reasoning_text.delta",
        "item_id": "rs_2",
        "output_index": 1,
        "content_index": 0,
        "delta": "raw",
    }
    reply = stream(
        summary("rs_1", 0, "A"),
        summary("rs_1", 0, "a"),
        summary("rs_1", 1, "B"),
        raw,
        completed(),
    )
    events, final = await run_reply(reply)
    assert final.reasoning == "Aa\n\nB\n\nraw"
    assert [e.text for e in events] == ["A", "a", "\n\nB", "\n\nraw"]


# --- lone surrogates ---------------------------------------------------------------------------

HIGH, LOW = "\ud83d", "\ude00"  # json.dumps sends them as the escapes a provider would


def summary_delta(delta: str) -> dict[str, Any]:
    return {
        "type": "response.reasoning_summary_text.delta",
        "item_id": "rs_1",
        "output_index": 0,
        "summary_index": 0,
        "delta": delta,
    }


async def test_surrogate_pair_split_across_deltas_arrives_whole() -> None:
    reply = stream(
        summary_delta("think " + HIGH),
        summary_delta(LOW),
        text_delta("smile " + HIGH, index=1),
        text_delta(LOW + " done", index=1),
        completed(),
    )
    events, final = await run_reply(reply)
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["think ", "😀"]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["smile ", "😀 done"]
    assert (final.text, final.reasoning) == ("smile 😀 done", "think 😀")


async def test_lone_surrogates_become_replacement_characters() -> None:
    reply = stream(
        summary_delta("r" + HIGH),
        text_delta(LOW + "a", index=1),
        text_delta("end" + HIGH, index=1),
        completed(),
    )
    events, final = await run_reply(reply)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "\ufffdaend\ufffd"
    assert (final.text, final.reasoning) == ("\ufffdaend\ufffd", "r\ufffd")


async def test_surrogates_in_final_output_text_and_calls_are_replaced() -> None:
    output = [
        {"type": "message", "content": [{"type": "output_text", "text": "hi" + HIGH}]},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_" + LOW,
            "name": "f" + HIGH,
            "arguments": '{"t": "' + HIGH + LOW + '", "u": "' + LOW + '"}',
        },
    ]
    _, final = await run_reply(stream(completed(output=output)))
    assert final.text == "hi\ufffd"
    call = final.tool_calls[0]
    assert (call.id, call.name) == ("call_\ufffd", "f\ufffd")
    assert json.loads(call.arguments) == {"t": "😀", "u": "\ufffd"}


# --- HTTP errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "retryable"), [(429, True), (500, True), (400, False)])
async def test_http_errors_are_mapped(status: int, retryable: bool) -> None:
    body = {"error": {"message": f"scripted {status}", "type": "x", "code": None}}
    error = await run_error(ErrorReply(status, body))
    assert error.kind == "http"
    assert error.status == status
    assert error.retryable is retryable
    assert f"scripted {status}" in error.message and "prov" in error.message


# --- timeouts and cancellation ----------------------------------------------------------------


async def test_first_token_timeout() -> None:
    error = await run_error(HangReply(), first_token_timeout=0.3)
    assert error.kind == "timeout" and error.retryable


async def test_idle_timeout_mid_stream() -> None:
    reply = stream(text_delta("a"), text_delta("b"), completed(), delay=5.0)
    events: list[StreamEvent] = []
    with ScriptedServer([reply]) as server:
        service = ResponsesService(server.responses_url, None, "prov", idle_timeout=0.3)
        with pytest.raises(ProviderError) as info:
            async for event in service.stream(model_request()):
                events.append(event)
        await service.aclose()
    assert info.value.kind == "timeout" and "idle" in info.value.message
    assert events == [TextDelta("a")]


async def test_cancelling_the_consumer_closes_the_stream_promptly() -> None:
    with ScriptedServer([HangReply()]) as server:
        service = ResponsesService(server.responses_url, None, "prov")

        async def consume() -> None:
            async for _ in service.stream(model_request()):
                pass

        task = asyncio.create_task(consume())
        await asyncio.to_thread(server.wait_for_requests, 1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 60)
        await service.aclose()


# --- plugin factory ---------------------------------------------------------------------------


async def test_factory_creates_a_working_service() -> None:
    factory = responses_factory()
    assert factory.api == "responses"
    assert "responses" in {f.api for f in rho_register_provider_services()}
    with ScriptedServer([stream(text_delta("via factory"), completed())]) as server:
        service = factory.create(server.responses_url, "k", "prov", idle_timeout=5)
        assert isinstance(service, ResponsesService)
        try:
            _, final = await collect_stream(service)
        finally:
            await service.aclose()
    assert final.text == "via factory"


def test_httpx_is_not_imported_until_a_responses_service_is_created() -> None:
    code = (
        "import sys\n"
        "from rho_kernel.providers.plugin import responses_factory\n"
        "import rho_kernel.providers.models\n"
        "factory = responses_factory()\n"
        "assert 'httpx' not in sys.modules, 'httpx imported too early'\n"
        "factory.create('http://127.0.0.1:1/v1/responses', None, 'p')\n"
        "assert 'httpx' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
