"""Each preset's request as its server receives it, byte for byte, with the cache hints the
preset takes (and none for those that take none), and the recorded streams still decode."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.config.model import ProviderConfig
from rho_kernel.providers.cache_hints import request_hints, session_cache_key
from rho_kernel.providers.events import ModelRequest, ModelResponse
from rho_kernel.providers.plugin import chat_completions_factory, responses_factory
from rho_kernel.providers.resolve import PRESETS, ResolvedProvider, resolve_entry
from rho_kernel.testing.replies import fixture_reply
from rho_kernel.testing.server import ScriptedServer
from rho_kernel.testing.streams import collect_stream

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
SESSION = "3fa2c1d0"
KEY = "rho-5cdff3de7c66e6420e2036ba76727113"  # session_cache_key(SESSION)
MARK = {"type": "ephemeral"}

TOOL = {
    "name": "read_file",
    "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
}
CALLS = [
    {"id": f"c{n}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    for n in (1, 2)
]
CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are rho."},
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": "Hi."},
    {"role": "user", "content": "read both"},
    {"role": "assistant", "content": "", "tool_calls": CALLS},
    {"role": "tool", "content": "one", "tool_call_id": "c1"},
    {"role": "tool", "content": "two", "tool_call_id": "c2"},
]


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text, "cache_control": MARK}]


#: The conversation with Anthropic's breakpoints: the system prompt, the end of the request
#: before (the user's message, before the tool calls) and the last message; no other.
MARKED: list[dict[str, Any]] = [
    {"role": "system", "content": _text("You are rho.")},
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": "Hi."},
    {"role": "user", "content": _text("read both")},
    {"role": "assistant", "content": "", "tool_calls": CALLS},
    {"role": "tool", "content": "one", "tool_call_id": "c1"},
    {"role": "tool", "content": _text("two"), "tool_call_id": "c2"},
]


def chat_body(model: str, messages: list[dict[str, Any]], **hints: str) -> dict[str, Any]:
    return {
        "model": model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [{"type": "function", "function": TOOL}],
        "max_tokens": 100,
        **hints,
    }


def responses_body(model: str, **hints: str) -> dict[str, Any]:
    def message(role: str, kind: str, text: str) -> dict[str, Any]:
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    calls = [
        {"type": "function_call", "call_id": f"c{n}", "name": "read_file", "arguments": "{}"}
        for n in (1, 2)
    ]
    outputs = [
        {"type": "function_call_output", "call_id": f"c{n}", "output": text}
        for n, text in ((1, "one"), (2, "two"))
    ]
    return {
        "model": model,
        "instructions": "You are rho.",
        "input": [
            message("user", "input_text", "hello"),
            message("assistant", "output_text", "Hi."),
            message("user", "input_text", "read both"),
            *calls,
            *outputs,
        ],
        "stream": True,
        "store": False,
        "tools": [{"type": "function", **TOOL, "strict": False}],
        "max_output_tokens": 100,
        **hints,
    }


#: What each preset's server receives, for the model named.
EXPECTED: dict[str, tuple[str, dict[str, Any]]] = {
    "lm-studio": ("qwen3-coder", chat_body("qwen3-coder", CONVERSATION)),
    "ollama": ("llama3.3", chat_body("llama3.3", CONVERSATION)),
    "openrouter": (
        "anthropic/claude-sonnet-4",
        chat_body("anthropic/claude-sonnet-4", MARKED, session_id=KEY),
    ),
    "openai": ("gpt-5", responses_body("gpt-5", prompt_cache_key=KEY)),
    "groq": ("openai/gpt-oss-120b", chat_body("openai/gpt-oss-120b", CONVERSATION)),
    "zai": ("glm-4.6", chat_body("glm-4.6", CONVERSATION)),
    "zai-coding": ("glm-4.6", chat_body("glm-4.6", CONVERSATION)),
}


def test_every_preset_has_an_expected_request() -> None:
    assert set(EXPECTED) == set(PRESETS)
    assert session_cache_key(SESSION) == KEY


async def _sent(provider: ResolvedProvider, model: str) -> tuple[bytes, ModelResponse]:
    """The body `provider`'s service sends for the conversation, and the decoded reply (a
    recorded stream of the provider's protocol)."""
    responses = provider.api == "responses"
    name = (
        "responses--openai-gpt-4o-text" if responses else "chat--openai-gpt-4o-parallel-tool-calls"
    )
    factory = responses_factory() if responses else chat_completions_factory()
    with ScriptedServer([fixture_reply(STREAMS / f"{name}.jsonl")]) as server:
        endpoint = server.responses_url if responses else server.chat_url
        service = factory.create(
            endpoint, None, provider.name, first_token_timeout=0, idle_timeout=0
        )
        request = ModelRequest(
            model=model,
            messages=CONVERSATION,
            tools=[TOOL],
            max_tokens=100,
            cache=request_hints(provider, model, SESSION),
        )
        try:
            _, final = await asyncio.wait_for(collect_stream(service, request), 10)
        finally:
            await service.aclose()
        [recorded] = server.requests
    return recorded.body, final


def _exactly(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_each_preset_sends_exactly_the_hints_it_takes(preset: str) -> None:
    model, expected = EXPECTED[preset]
    provider = resolve_entry(ProviderConfig(preset=preset))
    body, final = await _sent(provider, model)
    assert body == _exactly(expected)
    if provider.api == "responses":  # the recorded streams decode as before
        assert final.text == "The capital of France is Paris."
    else:
        assert [call.name for call in final.tool_calls] == ["get_weather", "get_product_name"]
    assert CONVERSATION[0] == {"role": "system", "content": "You are rho."}  # untouched


async def test_openrouter_marks_only_anthropics_models() -> None:
    provider = resolve_entry(ProviderConfig(preset="openrouter"))
    body, _ = await _sent(provider, "openai/gpt-4o")
    assert body == _exactly(chat_body("openai/gpt-4o", CONVERSATION, session_id=KEY))
    alias, _ = await _sent(provider, "~anthropic/claude-sonnet-latest")
    assert alias == _exactly(chat_body("~anthropic/claude-sonnet-latest", MARKED, session_id=KEY))


async def test_a_provider_switched_off_or_local_sends_no_hint() -> None:
    for entry in (
        ProviderConfig(preset="openai", cache_hints=False),
        ProviderConfig(preset="openrouter", cache_hints="off"),
        ProviderConfig(name="llama.cpp", endpoint="http://127.0.0.1:8080/v1/chat/completions"),
    ):
        provider = resolve_entry(entry)
        body, _ = await _sent(provider, "anthropic/claude-sonnet-4")
        sent = json.loads(body)
        assert not {"prompt_cache_key", "session_id"} & set(sent), entry
        assert b"cache_control" not in body, entry


async def test_explicit_styles_reach_an_endpoint_rho_does_not_recognise() -> None:
    gateway = "http://127.0.0.1:4000/v1/chat/completions"
    marks = resolve_entry(ProviderConfig(name="g", endpoint=gateway, cache_hints="cache_control"))
    body, _ = await _sent(marks, "claude-sonnet-4-20250514")
    assert body == _exactly(chat_body("claude-sonnet-4-20250514", MARKED))
    key = resolve_entry(ProviderConfig(name="g", endpoint=gateway, cache_hints="prompt_cache_key"))
    body, _ = await _sent(key, "gpt-5")
    assert body == _exactly(chat_body("gpt-5", CONVERSATION, prompt_cache_key=KEY))


async def test_responses_sends_the_key_only() -> None:
    routed = resolve_entry(ProviderConfig(preset="openrouter", api="responses"))
    body, _ = await _sent(routed, "anthropic/claude-sonnet-4")
    assert body == _exactly(responses_body("anthropic/claude-sonnet-4"))
