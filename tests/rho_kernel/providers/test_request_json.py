"""A request body is the JSON httpx would send, with each message encoded once per session,
and a request does no import work once the first one is sent."""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.machinery
import json
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.providers.request_json import RequestEncoder
from rho_kernel.testing.replies import text_reply
from rho_kernel.testing.server import ScriptedServer
from rho_kernel.testing.streams import collect_stream, model_request


def _httpx_bytes(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _VALUES, max_size=6))
def test_a_body_is_encoded_as_httpx_encodes_json(body: dict[str, Any]) -> None:
    encoder = RequestEncoder()
    assert encoder.encode(body) == _httpx_bytes(body)
    assert encoder.encode(body) == _httpx_bytes(body)  # again, from what it kept


def test_only_the_messages_a_request_adds_are_encoded() -> None:
    encoder = RequestEncoder()
    system = {"role": "system", "content": "ünïcode ✓"}
    user = {"role": "user", "content": "hi"}
    first = {"model": "m", "messages": [system, user], "stream": True}
    assert encoder.encode(first) == _httpx_bytes(first)
    assert encoder.encoded_items == 2
    reply = {"role": "assistant", "content": "hello"}
    second = {"model": "m", "messages": [system, user, reply], "stream": True}
    assert encoder.encode(second) == _httpx_bytes(second)
    assert encoder.encoded_items == 3


def test_an_equal_but_new_message_is_encoded_afresh() -> None:
    encoder = RequestEncoder()
    message = {"role": "user", "content": "one"}
    encoder.encode({"messages": [message]})
    changed = {"role": "user", "content": "two"}
    assert encoder.encode({"messages": [changed]}) == _httpx_bytes({"messages": [changed]})
    assert encoder.encoded_items == 2


def test_a_message_sent_before_is_reused_wherever_it_comes_back() -> None:
    encoder = RequestEncoder()
    system, a, b = {"content": "s"}, {"content": "a"}, {"content": "b"}
    encoder.encode({"messages": [system, a, b]})
    note = {"content": "2 messages omitted"}  # fresh at every turn, near the start
    body = {"messages": [system, note, a, b]}
    assert encoder.encode(body) == _httpx_bytes(body)
    assert encoder.encoded_items == 4  # only the note
    body = {"messages": [system, {"content": "2 messages omitted"}, a, b, {"content": "c"}]}
    assert encoder.encode(body) == _httpx_bytes(body)
    assert encoder.encoded_items == 6


def test_what_the_encoder_remembers_stays_bounded() -> None:
    encoder = RequestEncoder()
    for turn in range(200):
        encoder.encode({"messages": [{"content": f"{turn}-{n}"} for n in range(5)]})
        assert encoder.remembered_items <= 2 * 5 + 16 + 5
    assert encoder.encoded_items == 1000


def test_a_nan_is_refused_as_httpx_refuses_it() -> None:
    with pytest.raises(ValueError):
        RequestEncoder().encode({"temperature": float("nan")})


class _Lookups(importlib.abc.MetaPathFinder):
    """Records every module name the import system searches for (found or not)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        self.names.append(fullname)
        return None


def test_requests_after_the_first_search_for_no_module() -> None:
    async def three_requests(lookups: _Lookups) -> list[str]:
        with ScriptedServer() as server:
            server.add(*(text_reply(f"reply {n}") for n in range(3)))
            service = ChatCompletionsService(server.chat_url, None, "test")
            try:
                await collect_stream(service, model_request())
                sys.meta_path.insert(0, lookups)
                try:
                    for _ in range(2):
                        _, response = await collect_stream(service, model_request())
                        assert response.text.startswith("reply")
                finally:
                    sys.meta_path.remove(lookups)
            finally:
                await service.aclose()
        return lookups.names

    assert asyncio.run(three_requests(_Lookups())) == []


def test_the_same_tool_schemas_are_encoded_once_for_the_session() -> None:
    service = ChatCompletionsService("http://127.0.0.1:9/v1/chat/completions", None, "test")
    tools = [
        {"name": "read_file", "description": "Read.", "parameters": {"type": "object"}},
        {"name": "list_dir", "description": "List."},
    ]
    encoder = RequestEncoder()
    first = service.build_body(model_request(tools=tools))
    assert encoder.encode(first) == _httpx_bytes(first)
    encoded = encoder.encoded_items  # the two tools and the message
    second = service.build_body(model_request(tools=list(tools)))  # the same schemas
    assert second["tools"] is first["tools"]
    assert encoder.encode(second) == _httpx_bytes(second)
    assert encoder.encoded_items == encoded + 1  # only the new request's message
    changed = [tools[0], {"name": "list_dir", "description": "List files."}]
    third = service.build_body(model_request(tools=changed))
    assert [t["function"]["description"] for t in third["tools"]] == ["Read.", "List files."]
    assert third["tools"][1]["function"]["parameters"] == {"type": "object", "properties": {}}
