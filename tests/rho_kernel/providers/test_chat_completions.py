"""ChatCompletionsService against the scripted server: recorded streams, request shape,
decoding edge cases, timeouts and cancellation."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.providers.events import (
    ModelResponse,
    ProviderError,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    Usage,
)
from rho_kernel.providers.plugin import chat_completions_factory
from rho_kernel.testing.replies import (
    HangReply,
    RawReply,
    Reply,
    SSEReply,
    chat_chunk,
    fixture_reply,
    text_reply,
    tool_call_reply,
    tool_calls_reply,
)
from rho_kernel.testing.server import ScriptedServer
from rho_kernel.testing.streams import collect_stream, model_request

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


async def run_reply(reply: Reply, **service_args: Any) -> tuple[list[StreamEvent], ModelResponse]:
    with ScriptedServer([reply]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov", **service_args)
        try:
            return await asyncio.wait_for(collect_stream(service), 10)
        finally:
            await service.aclose()


async def run_error(reply: Reply, **service_args: Any) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await run_reply(reply, **service_args)
    return info.value


# --- recorded streams -------------------------------------------------------------------------


@dataclass
class Expected:
    text_sha: str = EMPTY_SHA
    text_len: int = 0
    text_start: str = ""
    reasoning_len: int = 0
    reasoning_start: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    finish: str | None = None
    usage: Usage | None = None
    error: tuple[str, ...] = ()


EXPECTED: dict[str, Expected] = {
    "chat--openai-gpt-4.1-nano-text": Expected(
        text_sha="53b2d9e583d02b3ff0a0e83be5beb61ce1d16ccddc7ab9f033e72ec8ef55c8e4",
        text_len=1724,
        text_start="**Holiday Name:** Harmony Day\n\n**Date:** Celebrated annually on the first Saturd",
        finish="stop",
        usage=Usage(input_tokens=16, output_tokens=300, total_tokens=316),
    ),
    "chat--deepseek-reasoner-reasoning-then-text": Expected(
        text_sha="cf0e60278f7fbdc36fdaf5630f08ec831d6d051d936563171e86258ad95ae574",
        text_len=40,
        text_start="Hello there! 😊 How can I help you today?",
        reasoning_len=882,
        reasoning_start="Hmm, the user just said \"Hello\". It's a simple greeting but I wonder if there's ",
        finish="stop",
        usage=Usage(input_tokens=6, output_tokens=212, total_tokens=218, reasoning_tokens=198),
    ),
    "chat--deepseek-reasoner-tool-call": Expected(
        reasoning_len=191,
        reasoning_start="The user is asking for the weather in San Francisco. I need to use the weather t",
        calls=[("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", '{"location": "San Francisco"}')],
        finish="tool_calls",
        usage=Usage(
            input_tokens=339,
            output_tokens=83,
            total_tokens=422,
            reasoning_tokens=39,
            cached_tokens=320,
        ),
    ),
    "chat--openai-gpt-4o-parallel-tool-calls": Expected(
        calls=[
            ("call_NS4iQj14cDFwc0BnrKqDHavt", "get_weather", '{"city": "Mexico City"}'),
            ("call_SkGkkGDvHQEEk0CGbnAh2AQw", "get_product_name", "{}"),
        ],
        finish="tool_calls",
        usage=Usage(input_tokens=417, output_tokens=44, total_tokens=461),
    ),
    "chat--xai-grok-3-mini-reasoning-tool-call": Expected(
        reasoning_len=1069,
        reasoning_start="First, the user is asking about the weather in San Francisco. I have a available",
        calls=[("call_79382389", "weather", '{"location":"San Francisco"}')],
        finish="tool_calls",
        usage=Usage(
            input_tokens=307,
            output_tokens=26,
            total_tokens=560,
            reasoning_tokens=227,
            cached_tokens=306,
        ),
    ),
    "chat--alibaba-qwen3-max-tool-call": Expected(
        calls=[("call_eee11723464a4b9eb8cee71d", "weather", '{"location": "San Francisco"}')],
        finish="tool_calls",
        usage=Usage(input_tokens=295, output_tokens=22, total_tokens=317),
    ),
    "chat--groq-gpt-oss-120b-reasoning-tool-call": Expected(
        reasoning_len=92,
        reasoning_start='We need to call the function with correct parameter "name". Provide a name, e.g.',
        calls=[
            (
                "fc_bfb39741-3748-4def-9886-a93fc9c64a90",
                "get_something_by_name",
                '{"name":"example"}',
            )
        ],
        finish="tool_calls",
        usage=Usage(input_tokens=304, output_tokens=49, total_tokens=353, reasoning_tokens=23),
    ),
    "chat--groq-gpt-oss-120b-event-error": Expected(
        reasoning_len=412,
        reasoning_start="We need to call the tool with invalid parameters first, then second call with va",
        error=("tool_use_failed", "Tool call validation failed"),
    ),
    "chat--openrouter-minimax-m2-error-chunk": Expected(
        reasoning_len=42,
        reasoning_start="We need to respond to a greeting. The user",
        error=("Token limit reached", "400"),
    ),
}


def test_every_chat_fixture_has_an_expectation() -> None:
    assert {path.stem for path in STREAMS.glob("chat--*.jsonl")} == set(EXPECTED)


async def decode_fixture(
    name: str, split_every: int | None
) -> tuple[list[StreamEvent], ModelResponse | ProviderError]:
    reply = fixture_reply(STREAMS / f"{name}.jsonl", split_every=split_every)
    events: list[StreamEvent] = []
    with ScriptedServer([reply]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov")
        try:
            async for event in service.stream(model_request()):
                events.append(event)
        except ProviderError as error:
            return events, error
        finally:
            await service.aclose()
    final = events.pop()
    assert isinstance(final, ModelResponse)
    return events, final


@pytest.mark.parametrize("split_every", [None, 7])
@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_chat_stream(name: str, split_every: int | None) -> None:
    expected = EXPECTED[name]
    events, result = await asyncio.wait_for(decode_fixture(name, split_every), 20)
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert hashlib.sha256(text.encode()).hexdigest() == expected.text_sha
    assert len(reasoning) == expected.reasoning_len
    assert reasoning[:80] == expected.reasoning_start
    if expected.error:
        assert isinstance(result, ProviderError)
        assert result.kind == "stream"
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


async def test_openrouter_cost_is_read_from_usage() -> None:
    # The error chunk carries usage with cost 0; decode the same chunk without its error.
    line = (STREAMS / "chat--openrouter-minimax-m2-error-chunk.jsonl").read_text().splitlines()[-1]
    chunk = json.loads(line)
    del chunk["error"]
    _, final = await run_reply(SSEReply([chunk]))
    assert final.usage == Usage(
        input_tokens=43, output_tokens=10, total_tokens=53, reasoning_tokens=11, cost=0.0
    )


# --- request shape ----------------------------------------------------------------------------


async def test_request_body_and_headers() -> None:
    tools = [
        {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ]
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    with ScriptedServer([text_reply("ok")]) as server:
        service = ChatCompletionsService(server.chat_url, "sk-test", "prov")
        try:
            req = model_request(
                model="gpt-x",
                messages=messages,
                tools=tools,
                max_tokens=123,
                reasoning_effort="high",
            )
            await collect_stream(service, req)
        finally:
            await service.aclose()
        [recorded] = server.requests
    assert recorded.method == "POST"
    assert recorded.path == "/v1/chat/completions"
    assert recorded.headers["authorization"] == "Bearer sk-test"
    assert recorded.headers["content-type"] == "application/json"
    assert recorded.json == {
        "model": "gpt-x",
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [{"type": "function", "function": tools[0]}],
        "max_tokens": 123,
        "reasoning_effort": "high",
    }


async def test_minimal_request_has_no_optional_fields_and_no_auth() -> None:
    with ScriptedServer([text_reply("ok")]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov")
        try:
            await collect_stream(service)
        finally:
            await service.aclose()
        [recorded] = server.requests
    assert "authorization" not in recorded.headers
    assert recorded.json == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


# --- decoding ---------------------------------------------------------------------------------


async def test_text_reply_deltas_and_usage() -> None:
    events, final = await run_reply(text_reply("Hello, world!", chunks=4, reasoning="think"))
    assert [type(e) for e in events] == [ReasoningDelta] + [TextDelta] * 4
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello, world!"
    assert final.text == "Hello, world!"
    assert final.reasoning == "think"
    assert final.finish_reason == "stop"
    assert final.usage == Usage(input_tokens=10, output_tokens=5, total_tokens=15)
    assert final.tool_calls == []


async def test_scripted_tool_calls_round_trip() -> None:
    reply = tool_calls_reply(
        [("read", {"path": "a.txt"}), ("write", '{"path": "b", "text": "é"}')],
        call_ids=["c1", "c2"],
        text="Let me look.",
    )
    _, final = await run_reply(reply)
    assert final.text == "Let me look."
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("c1", "read", '{"path": "a.txt"}'),
        ("c2", "write", '{"path": "b", "text": "é"}'),
    ]
    assert final.finish_reason == "tool_calls"


async def test_single_tool_call_reply_default_id() -> None:
    _, final = await run_reply(tool_call_reply("ls", {}))
    [call] = final.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_scripted_0", "ls", "{}")


async def test_interleaved_tool_call_fragments_are_merged_by_index() -> None:
    def frag(**values: Any) -> dict[str, Any]:
        return chat_chunk({"tool_calls": [values]})

    payloads = [
        frag(index=1, id="b", function={"name": "second", "arguments": '{"x"'}),
        frag(index=0, id="a", function={"name": "first", "arguments": ""}),
        frag(index=1, id="", function={"name": "", "arguments": ": 1}"}),
        frag(index=0, function={"arguments": "{}"}),
        chat_chunk({}, "tool_calls"),
    ]
    _, final = await run_reply(SSEReply(payloads))
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("a", "first", "{}"),
        ("b", "second", '{"x": 1}'),
    ]


async def test_tool_call_fragments_without_index() -> None:
    payloads = [
        chat_chunk({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{"}}]}),
        chat_chunk({"tool_calls": [{"function": {"arguments": "}"}}]}),
        chat_chunk({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": {"k": 1}}}]}),
    ]
    _, final = await run_reply(SSEReply(payloads))
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("a", "f", "{}"),
        ("b", "g", '{"k": 1}'),
    ]


async def test_tool_call_without_id_gets_one() -> None:
    payloads = [chat_chunk({"tool_calls": [{"index": 0, "function": {"name": "f"}}]})]
    _, final = await run_reply(SSEReply(payloads))
    [call] = final.tool_calls
    assert call.id.startswith("call_0_")
    assert call.arguments == ""


async def test_nameless_tool_call_is_a_decode_error() -> None:
    payloads = [
        chat_chunk({"tool_calls": [{"index": 0, "id": "x", "function": {"arguments": "{}"}}]})
    ]
    error = await run_error(SSEReply(payloads))
    assert error.kind == "decode"
    assert not error.retryable
    assert "without a function name" in error.message


async def test_unknown_fields_are_ignored() -> None:
    chunk = chat_chunk({"content": "hi", "audio": {"x": 1}, "annotations": []})
    chunk["choices"][0]["logprobs"] = {"content": []}
    chunk["x_vendor"] = {"anything": [1, 2]}
    chunk["usage"] = None
    payloads = [chunk, {"choices": [], "usage": {"prompt_tokens": 3, "extra": 1}, "meta": 2}]
    _, final = await run_reply(SSEReply(payloads))
    assert final.text == "hi"
    assert final.usage == Usage(input_tokens=3, total_tokens=3)


async def test_reasoning_content_preferred_over_duplicate_reasoning() -> None:
    payloads = [chat_chunk({"reasoning_content": "r1", "reasoning": "r1"})]
    events, final = await run_reply(SSEReply(payloads))
    assert final.reasoning == "r1"
    assert events == [ReasoningDelta("r1")]


async def test_no_choices_and_done_gives_an_empty_response() -> None:
    _, final = await run_reply(SSEReply([{"id": "x", "object": "chat.completion.chunk"}]))
    assert final == ModelResponse(text="", reasoning="", tool_calls=[], usage=None)


async def test_only_done_gives_an_empty_response() -> None:
    _, final = await run_reply(SSEReply([]))
    assert final.text == "" and final.finish_reason is None


async def test_stream_cut_off_without_done_or_finish_reason_is_a_retryable_error() -> None:
    reply = SSEReply(
        [chat_chunk({"content": "partial "}), chat_chunk({"content": "text"})], done=False
    )
    error = await run_error(reply)
    assert error.kind == "stream" and error.retryable
    assert "prov" in error.message and "cut off" in error.message


async def test_finish_reason_without_done_is_complete() -> None:
    reply = SSEReply([chat_chunk({"content": "all"}), chat_chunk({}, "stop")], done=False)
    _, final = await run_reply(reply)
    assert (final.text, final.finish_reason) == ("all", "stop")


async def test_done_without_finish_reason_is_complete() -> None:
    _, final = await run_reply(SSEReply([chat_chunk({"content": "all"})]))
    assert (final.text, final.finish_reason) == ("all", None)


async def test_last_event_without_its_blank_line_is_read_when_the_stream_ends() -> None:
    """The parser is flushed at the end of the body: an event cut before its blank line
    still counts (here it carries the finish_reason, without which the reply is cut off)."""
    first = json.dumps(chat_chunk({"content": "a"}))
    last = json.dumps(chat_chunk({"content": "b"}, "stop"))
    body = f"data: {first}\n\ndata: {last}".encode()
    _, final = await run_reply(RawReply(200, body, content_type="text/event-stream"))
    assert (final.text, final.finish_reason) == ("ab", "stop")


@pytest.mark.parametrize(
    "name", sorted(name for name, expected in EXPECTED.items() if not expected.error)
)
async def test_recorded_chat_stream_is_complete_without_done(name: str) -> None:
    """Every recorded reply ends with a finish_reason, so it decodes the same without [DONE]."""
    reply = fixture_reply(STREAMS / f"{name}.jsonl")
    reply.done = False
    _, final = await run_reply(reply)
    expected = EXPECTED[name]
    assert hashlib.sha256(final.text.encode()).hexdigest() == expected.text_sha
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == expected.calls
    assert final.finish_reason == expected.finish and final.usage == expected.usage


# ── lone surrogates: split pairs are joined, lone halves replaced ─────────────────────────

# Raw chunks as a provider sends them: JSON escapes, one half of 😀 (U+1F600) per chunk.
HIGH, LOW = "\\ud83d", "\\ude00"


def raw_chunk(delta: str, finish: str | None = None) -> str:
    finish_json = f'"{finish}"' if finish else "null"
    return f'{{"choices":[{{"index":0,"delta":{delta},"finish_reason":{finish_json}}}]}}'


async def test_surrogate_pair_split_across_chunks_arrives_whole() -> None:
    reply = SSEReply(
        [
            raw_chunk(f'{{"reasoning_content":"think {HIGH}"}}'),
            raw_chunk(f'{{"reasoning_content":"{LOW}"}}'),
            raw_chunk(f'{{"content":"smile {HIGH}"}}'),
            raw_chunk(f'{{"content":"{LOW} done"}}', "stop"),
        ]
    )
    events, final = await run_reply(reply)
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["think ", "😀"]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["smile ", "😀 done"]
    assert (final.text, final.reasoning) == ("smile 😀 done", "think 😀")


async def test_lone_surrogates_become_replacement_characters() -> None:
    reply = SSEReply(
        [
            raw_chunk(f'{{"content":"{LOW}a{HIGH}b"}}'),
            raw_chunk(f'{{"reasoning_content":"r{HIGH}"}}'),
            raw_chunk(f'{{"content":"end{HIGH}"}}', "stop"),
        ]
    )
    events, final = await run_reply(reply)
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == final.text == "\ufffda\ufffdbend\ufffd"
    assert final.reasoning == "r\ufffd"
    for event in events:
        assert isinstance(event, TextDelta | ReasoningDelta)
        event.text.encode("utf-8")  # no lone surrogate left: encodable


async def test_surrogates_in_tool_calls_are_joined_or_replaced() -> None:
    first = (
        '{"index":0,"id":"call_' + HIGH + '","type":"function",'
        '"function":{"name":"f' + LOW + '","arguments":"{\\"t\\": \\"' + HIGH + '"}}'
    )
    rest = '{"index":0,"function":{"arguments":"' + LOW + '\\"}"}}'
    reply = SSEReply(
        [
            raw_chunk(f'{{"tool_calls":[{first}]}}'),
            raw_chunk(f'{{"tool_calls":[{rest}]}}', "tool_calls"),
        ]
    )
    _, final = await run_reply(reply)
    call = final.tool_calls[0]
    assert (call.id, call.function.name) == ("call_\ufffd", "f\ufffd")
    assert json.loads(call.function.arguments) == {"t": "😀"}


# ── credentials in the endpoint URL are masked in stream errors ───────────────────────────


async def masked_error(reply: Reply, **service_args: Any) -> ProviderError:
    with ScriptedServer([reply]) as server:
        scheme, rest = server.chat_url.split("://", 1)
        endpoint = f"{scheme}://me:pa55word@{rest}?key=SECRET-KEY"
        service = ChatCompletionsService(endpoint, None, "", **service_args)
        try:
            with pytest.raises(ProviderError) as info:
                await asyncio.wait_for(collect_stream(service), 10)
        finally:
            await service.aclose()
    error = info.value
    assert "pa55word" not in error.message and "SECRET-KEY" not in error.message
    assert "://***@127.0.0.1:" in error.message and "?key=***" in error.message
    return error


async def test_stream_errors_show_the_endpoint_masked() -> None:
    assert (await masked_error(HangReply(30), first_token_timeout=0.3)).kind == "timeout"
    assert (await masked_error(SSEReply(["not json"]))).kind == "decode"
    assert (await masked_error(SSEReply([chat_chunk({"content": "a"})], done=False))).kind == (
        "stream"
    )


async def test_empty_event_stream_is_a_retryable_stream_error() -> None:
    error = await run_error(SSEReply([], done=False, comments_before=2))
    assert error.kind == "stream"
    assert error.retryable


async def test_data_after_done_is_not_read() -> None:
    reply = SSEReply([chat_chunk({"content": "a"}), "[DONE]", "not json"], done=False)
    _, final = await run_reply(reply)
    assert final.text == "a"


async def test_truncated_json_chunk_is_a_decode_error() -> None:
    reply = SSEReply([chat_chunk({"content": "a"}), '{"choices": [{"delta": {"cont'])
    error = await run_error(reply)
    assert error.kind == "decode"
    assert not error.retryable
    assert "prov" in error.message and "invalid JSON" in error.message


async def test_non_object_chunk_is_a_decode_error() -> None:
    error = await run_error(SSEReply(["[1, 2]"]))
    assert error.kind == "decode"


async def test_error_event_with_plain_text_data() -> None:
    error = await run_error(SSEReply(["upstream exploded"], event_names=["error"], done=False))
    assert error.kind == "stream"
    assert "upstream exploded" in error.message


async def test_in_band_rate_limit_error_is_retryable() -> None:
    reply = SSEReply([{"error": {"code": 429, "message": "Rate limit exceeded upstream"}}])
    error = await run_error(reply)
    assert error.kind == "stream"
    assert error.retryable
    assert "Rate limit exceeded upstream" in error.message


async def test_in_band_error_null_is_not_an_error() -> None:
    chunk = chat_chunk({"content": "fine"})
    chunk["error"] = None
    _, final = await run_reply(SSEReply([chunk]))
    assert final.text == "fine"


# --- timeouts and cancellation ----------------------------------------------------------------


async def test_first_token_timeout_when_headers_arrive_but_no_data() -> None:
    error = await run_error(HangReply(), first_token_timeout=0.3)
    assert error.kind == "timeout"
    assert error.retryable


async def test_first_token_timeout_when_no_headers_arrive() -> None:
    error = await run_error(HangReply(before_headers=True), first_token_timeout=0.3)
    assert error.kind == "timeout"
    assert error.retryable


async def test_keepalive_comments_do_not_count_as_first_token() -> None:
    reply = SSEReply([chat_chunk({"content": "late"})], comments_before=5, delay=0.1)
    error = await run_error(reply, first_token_timeout=0.3)
    assert error.kind == "timeout"


async def test_idle_timeout_mid_stream() -> None:
    reply = SSEReply([chat_chunk({"content": "a"}), chat_chunk({"content": "b"})], delay=5.0)
    events: list[StreamEvent] = []
    with ScriptedServer([reply]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov", idle_timeout=0.3)
        with pytest.raises(ProviderError) as info:
            async for event in service.stream(model_request()):
                events.append(event)
        await service.aclose()
    assert info.value.kind == "timeout" and info.value.retryable
    assert "idle" in info.value.message
    assert events == [TextDelta("a")]


async def test_slow_but_steady_stream_is_not_timed_out() -> None:
    payloads = [chat_chunk({"content": c}) for c in "abcd"]
    _, final = await run_reply(
        SSEReply(payloads, delay=0.1), first_token_timeout=0.5, idle_timeout=0.5
    )
    assert final.text == "abcd"


async def test_cancelling_the_consumer_closes_the_stream_promptly() -> None:
    with ScriptedServer([HangReply()]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov")

        async def consume() -> None:
            async for _ in service.stream(model_request()):
                pass

        task = asyncio.create_task(consume())
        await asyncio.to_thread(server.wait_for_requests, 1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 60)
        await service.aclose()


async def test_shared_client_is_not_closed_by_the_service() -> None:
    async with httpx.AsyncClient() as client:
        with ScriptedServer([text_reply("one"), text_reply("two")]) as server:
            for expected in ("one", "two"):
                service = ChatCompletionsService(server.chat_url, None, "prov", client=client)
                _, final = await collect_stream(service)
                await service.aclose()
                assert final.text == expected
        assert not client.is_closed


async def test_service_can_be_reused_for_several_requests() -> None:
    with ScriptedServer([text_reply("one"), text_reply("two")]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov")
        try:
            assert (await collect_stream(service))[1].text == "one"
            assert (await collect_stream(service))[1].text == "two"
        finally:
            await service.aclose()


# --- plugin factory ---------------------------------------------------------------------------


async def test_factory_creates_a_working_service() -> None:
    factory = chat_completions_factory()
    assert factory.api == "chat_completions"
    with ScriptedServer([text_reply("via factory")]) as server:
        service = factory.create(server.chat_url, "k", "prov")
        assert isinstance(service, ChatCompletionsService)
        try:
            _, final = await collect_stream(service)
        finally:
            await service.aclose()
    assert final.text == "via factory"


def test_httpx_is_not_imported_until_a_service_is_created() -> None:
    code = (
        "import sys\n"
        "import rho_kernel, rho_kernel.providers.events, rho_kernel.providers.service\n"
        "import rho_kernel.providers.sse, rho_kernel.providers.plugin\n"
        "from rho_kernel.providers.plugin import chat_completions_factory\n"
        "factory = chat_completions_factory()\n"
        "assert 'httpx' not in sys.modules, 'httpx imported too early'\n"
        "factory.create('http://127.0.0.1:1/v1/chat/completions', None, 'p')\n"
        "assert 'httpx' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
