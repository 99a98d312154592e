"""What a request carries for the provider's prompt cache: the session's key, the hints of
each style, and where breakpoints go on its messages."""

from __future__ import annotations

import copy
import itertools
import json
import re
from typing import Any

import pytest

from rho_kernel.config.model import ProviderConfig
from rho_kernel.messages import ChatMessage
from rho_kernel.providers.cache_hints import (
    EPHEMERAL,
    MAX_BREAKPOINTS,
    Breakpoints,
    CacheHints,
    breakpoint_positions,
    marked,
    request_hints,
    session_cache_key,
)
from rho_kernel.providers.request_json import RequestEncoder
from rho_kernel.providers.resolve import resolve_entry

# ── the key ─────────────────────────────────────────────────────────────────


def test_the_key_is_a_fixed_hash_of_the_session_id() -> None:
    # Pinned: a resumed session must keep its key across rho versions too.
    assert session_cache_key("3fa2c1d0") == "rho-5cdff3de7c66e6420e2036ba76727113"
    assert session_cache_key("3fa2c1d0") == session_cache_key("3fa2c1d0")


def test_keys_of_other_sessions_differ_and_say_nothing_of_the_id() -> None:
    ids = [f"{n:08x}" for n in range(0, 4096, 7)]
    keys = [session_cache_key(i) for i in ids]
    assert len(set(keys)) == len(ids)
    for session_id, key in zip(ids, keys, strict=True):
        assert re.fullmatch(r"rho-[0-9a-f]{32}", key)  # OpenAI takes at most 64 characters
        assert session_id not in key


def test_what_a_request_carries_for_each_style() -> None:
    key = session_cache_key("3fa2c1d0")
    openai = resolve_entry(ProviderConfig(preset="openai"))
    router = resolve_entry(ProviderConfig(preset="openrouter"))
    local = resolve_entry(ProviderConfig(preset="lm-studio"))
    gateway = resolve_entry(
        ProviderConfig(name="g", endpoint="http://h/v1", cache_hints="cache_control")
    )
    assert request_hints(openai, "gpt-5", "3fa2c1d0") == CacheHints(prompt_cache_key=key)
    assert request_hints(router, "anthropic/claude-sonnet-4", "3fa2c1d0") == CacheHints(
        session_id=key, breakpoints=True
    )
    assert request_hints(router, "openai/gpt-4o", "3fa2c1d0") == CacheHints(session_id=key)
    assert request_hints(gateway, "any", "3fa2c1d0") == CacheHints(breakpoints=True)
    assert request_hints(local, "anthropic/claude-sonnet-4", "3fa2c1d0") is None
    assert request_hints(None, "gpt-5", "3fa2c1d0") is None


# ── where breakpoints go ────────────────────────────────────────────────────

S = {"role": "system", "content": "You are rho."}
U1 = {"role": "user", "content": "hello"}
A1 = {"role": "assistant", "content": "Hi."}
U2 = {"role": "user", "content": "read both"}
CALLS = [
    {"id": f"c{n}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    for n in (1, 2)
]
A2 = {"role": "assistant", "content": "", "tool_calls": CALLS}
T1 = {"role": "tool", "content": "one", "tool_call_id": "c1"}
T2 = {"role": "tool", "content": "two", "tool_call_id": "c2"}


def test_breakpoints_on_the_system_prompt_the_previous_end_and_the_last_message() -> None:
    assert breakpoint_positions([S, U1]) == [0, 1]
    assert breakpoint_positions([S, U1, A1, U2]) == [0, 1, 3]
    # A2 holds only tool calls: the request before this one ended with U2.
    assert breakpoint_positions([S, U1, A1, U2, A2, T1, T2]) == [0, 3, 6]
    assert breakpoint_positions([U1, A1, U2]) == [0, 2]  # no system prompt
    assert breakpoint_positions([S]) == [0]
    assert breakpoint_positions([]) == []


def test_messages_without_text_carry_no_breakpoint() -> None:
    empty_tool = {"role": "tool", "content": "", "tool_call_id": "c2"}
    assert breakpoint_positions([S, U2, A2, T1, empty_tool]) == [0, 1, 3]
    blank_system = {"role": "system", "content": ""}
    assert breakpoint_positions([blank_system, U1]) == [1]
    two_systems = [S, {"role": "system", "content": "More."}, U1]
    assert breakpoint_positions(two_systems) == [1, 2]
    only_image = {"role": "user", "content": [{"type": "text", "text": ""}, _image()]}
    assert breakpoint_positions([S, only_image]) == [0]


def _image() -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


ROLES: dict[str, dict[str, Any]] = {
    "s": S,
    "u": U1,
    "a": A1,
    "c": A2,  # tool calls only
    "t": T1,
    "e": {"role": "tool", "content": "", "tool_call_id": "c2"},
}


@pytest.mark.parametrize("length", range(1, 7))
def test_never_more_than_three_breakpoints_each_on_a_message_with_text(length: int) -> None:
    for roles in itertools.product("suacte", repeat=length):
        messages = [ROLES[r] for r in roles]
        positions = breakpoint_positions(messages)
        assert len(positions) <= 3 <= MAX_BREAKPOINTS
        assert positions == sorted(set(positions))
        assert all(messages[p]["content"] for p in positions)
        carriers = [i for i, m in enumerate(messages) if m["content"]]
        if carriers:
            assert positions[-1] == carriers[-1]  # the last message that can carry one


def test_marking_turns_text_into_one_part_and_keeps_images_in_place() -> None:
    assert marked(T1) == {
        "role": "tool",
        "content": [{"type": "text", "text": "one", "cache_control": {"type": "ephemeral"}}],
        "tool_call_id": "c1",
    }
    with_image = {"role": "user", "content": [{"type": "text", "text": "look"}, _image()]}
    assert marked(with_image)["content"] == [
        {"type": "text", "text": "look", "cache_control": EPHEMERAL},
        _image(),
    ]


def test_breakpoints_leave_the_messages_given_untouched() -> None:
    messages = [copy.deepcopy(m) for m in (S, U1, A1, U2, A2, T1, T2)]
    before = json.dumps(messages)
    out = Breakpoints().apply(messages)
    assert json.dumps(messages) == before
    assert [i for i, m in enumerate(out) if m is not messages[i]] == [0, 3, 6]
    text = json.dumps(out)
    assert text.count('"cache_control"') == 3


def test_a_message_marked_again_is_the_same_object_and_encoded_once() -> None:
    marks, encoder = Breakpoints(), RequestEncoder()
    conversation = [dict(S), dict(U2)]
    first = marks.apply(conversation)
    encoder.encode({"messages": first})
    conversation += [dict(A2), dict(T1), dict(T2)]
    second = marks.apply(conversation)
    assert second[0] is first[0] and second[1] is first[1]  # system and the previous end
    encoded = encoder.encoded_items
    body = {"messages": second}
    assert (
        encoder.encode(body) == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    )
    assert encoder.encoded_items - encoded == 3  # the new messages only
    assert marks.apply([]) == []


def test_a_stored_or_received_message_brings_no_breakpoint_of_its_own() -> None:
    part = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    image = {**_image(), "cache_control": {"type": "ephemeral"}}
    hostile = ChatMessage.model_validate({"role": "user", "content": [part, image]})
    wire = hostile.to_wire()
    assert "cache_control" not in json.dumps(wire)
    out = Breakpoints().apply([S, *[wire] * 6])
    assert json.dumps(out).count("cache_control") == 2  # the system prompt and the end
