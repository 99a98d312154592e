"""A finished response is read to its end aside, so that its connection serves the next
request; a body that goes on after its terminal event never holds up the reply."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from rho_kernel.providers import drain
from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.providers.drain import DRAIN_BYTES
from rho_kernel.providers.events import TextDelta
from rho_kernel.testing.replies import ReplyHandler, text_reply
from rho_kernel.testing.server import ScriptedServer
from rho_kernel.testing.streams import collect_stream

#: Generous: the tests wait for events, this only stops a broken build from hanging.
NEVER = 60


@dataclass
class DoneThenMore:
    """A reply of `text`, `[DONE]`, then `tail` bytes, then a body that never ends."""

    text: str
    tail: int = 0

    def write(self, handler: ReplyHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        chunk = '{"choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":"stop"}]}'
        handler.wfile.write(b"data: " + (chunk % self.text).encode() + b"\n\ndata: [DONE]\n\n")
        handler.wfile.flush()
        for _ in range(self.tail // 1024):
            handler.wfile.write(b": " + b"x" * 1021 + b"\n")
        handler.wfile.flush()
        handler.stop_event.wait(3600)


def _text(events: list[object]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


async def test_the_next_request_goes_over_the_same_connection() -> None:
    with ScriptedServer([text_reply("one"), text_reply("two")], keep_alive=True) as server:
        service = ChatCompletionsService(server.chat_url, None, "local")
        first, _ = await collect_stream(service)
        await service.settle()
        second, _ = await collect_stream(service)
        await service.aclose()
    assert (_text(first), _text(second)) == ("one", "two")
    assert [request.connection for request in server.requests] == [1, 1]


async def test_a_body_that_never_ends_after_done_does_not_hold_the_reply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(drain, "DRAIN_SECONDS", 3600.0)  # only closing may stop the reading
    for keep_alive in (False, True):
        with ScriptedServer([DoneThenMore("hello")], keep_alive=keep_alive) as server:
            service = ChatCompletionsService(server.chat_url, None, "local")
            events, final = await asyncio.wait_for(collect_stream(service), NEVER)
            assert (_text(events), final.text) == ("hello", "hello")
            # Closing stops reading the rest: it does not wait for a body that never ends.
            await asyncio.wait_for(service.aclose(), NEVER)


async def test_a_long_tail_is_read_no_further_than_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(drain, "DRAIN_SECONDS", 3600.0)  # only the byte limit may stop it
    replies = [DoneThenMore("long", tail=2 * DRAIN_BYTES), text_reply("next")]
    with ScriptedServer(replies, keep_alive=True) as server:
        service = ChatCompletionsService(server.chat_url, None, "local")
        first, _ = await collect_stream(service)
        await asyncio.wait_for(service.settle(), NEVER)  # gave up on the tail, closed it
        second, _ = await collect_stream(service)
        await service.aclose()
    assert (_text(first), _text(second)) == ("long", "next")
    assert [request.connection for request in server.requests] == [1, 2]
