"""The scripted OpenAI-compatible server and its replies."""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path

import httpx
import pytest

from rho_kernel.testing.replies import (
    FIXTURE_TRANSPORTS,
    ErrorReply,
    HangReply,
    RawReply,
    SSEReply,
    fixture_payloads,
    fixture_reply,
    text_reply,
)
from rho_kernel.testing.server import EMPTY_SCRIPT_MESSAGE, ScriptedServer

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
#: httpx's TLS settings, made once: each client would read certifi's authorities again
#: (~80 ms of CPU), although these requests are plain HTTP.
TLS = httpx.create_ssl_context(trust_env=False)


def post(url: str, body: object | None = None, **headers: str) -> httpx.Response:
    return httpx.post(
        url, json=body or {"model": "m"}, headers=headers, timeout=5, trust_env=False, verify=TLS
    )


def test_replies_are_served_in_script_order() -> None:
    with ScriptedServer([ErrorReply(418), RawReply(200, b"two", "text/plain")]) as server:
        server.add(ErrorReply(503))
        assert post(server.chat_url).status_code == 418
        assert post(server.responses_url).text == "two"
        assert post(server.chat_url).status_code == 503
        assert server.remaining == 0


def test_empty_script_answers_500_with_a_json_error() -> None:
    with ScriptedServer() as server:
        response = post(server.chat_url)
    assert response.status_code == 500
    assert response.json() == {"error": {"message": EMPTY_SCRIPT_MESSAGE}}


def test_requests_are_recorded() -> None:
    with ScriptedServer([ErrorReply(400), ErrorReply(400)]) as server:
        post(server.chat_url, {"model": "a", "messages": []}, Authorization="Bearer x")
        httpx.post(server.chat_url, content=b"not json", timeout=5, trust_env=False, verify=TLS)
        first, second = server.wait_for_requests(2)
    assert first.method == "POST"
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == "Bearer x"
    assert first.json == {"model": "a", "messages": []}
    assert json.loads(first.body) == first.json
    assert second.body == b"not json" and second.json is None


def test_wait_for_requests_times_out() -> None:
    with ScriptedServer() as server, pytest.raises(TimeoutError):
        server.wait_for_requests(1, timeout=0.1)


def test_models_endpoint_and_unknown_paths() -> None:
    with ScriptedServer(models=["a", "b"]) as server:
        models = httpx.get(server.url + "/v1/models", timeout=5, trust_env=False, verify=TLS)
        missing = httpx.get(server.url + "/nope", timeout=5, trust_env=False, verify=TLS)
    assert models.json()["data"] == [
        {"id": "a", "object": "model"},
        {"id": "b", "object": "model"},
    ]
    assert missing.status_code == 404


def test_url_requires_start() -> None:
    server = ScriptedServer()
    with pytest.raises(RuntimeError):
        _ = server.url
    server.start()
    try:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.chat_url == server.url + "/v1/chat/completions"
        assert server.responses_url == server.url + "/v1/responses"
    finally:
        server.stop()
    server.stop()  # idempotent


def _raw_body(reply: SSEReply) -> tuple[str, bytes]:
    with ScriptedServer([reply]) as server:
        response = post(server.chat_url)
    return response.headers["content-type"], response.content


def test_sse_reply_framing() -> None:
    reply = SSEReply(
        [{"a": 1}, "raw text", {"b": 2}],
        event_names=["first", None, "third"],
        comments_before=2,
        comment="ping",
        headers={"X-Extra": "1"},
    )
    content_type, body = _raw_body(reply)
    assert content_type == "text/event-stream"
    assert body == (
        b": ping\n\n: ping\n\n"
        b'event: first\ndata: {"a": 1}\n\n'
        b"data: raw text\n\n"
        b'event: third\ndata: {"b": 2}\n\n'
        b"data: [DONE]\n\n"
    )


def test_sse_reply_split_and_delay_send_the_same_bytes() -> None:
    plain = SSEReply(["x" * 50, "y"], done=False)
    _, expected = _raw_body(plain)
    assert expected == b"data: " + b"x" * 50 + b"\n\ndata: y\n\n"
    assert _raw_body(SSEReply(["x" * 50, "y"], done=False, split_every=3))[1] == expected
    assert (
        _raw_body(SSEReply(["x" * 50, "y"], done=False, delay=0.01, split_every=5))[1] == expected
    )


def test_text_reply_shape() -> None:
    payloads = text_reply("abcdef", chunks=3, usage={"prompt_tokens": 1}).payloads
    deltas = [p["choices"][0]["delta"] for p in payloads if isinstance(p, dict) and p["choices"]]
    assert [d.get("content") for d in deltas] == ["", "ab", "cd", "ef", None]
    last = payloads[-1]
    assert isinstance(last, dict)
    assert last["choices"] == [] and last["usage"] == {"prompt_tokens": 1}


def test_every_fixture_file_has_a_transport() -> None:
    assert {path.stem for path in STREAMS.glob("*.jsonl")} == set(FIXTURE_TRANSPORTS)


def test_fixture_reply_restores_the_recorded_transport() -> None:
    groq = fixture_reply(STREAMS / "chat--groq-gpt-oss-120b-event-error.jsonl")
    assert not groq.done
    assert groq.event_names is not None
    assert groq.event_names[-1] == "error" and set(groq.event_names[:-1]) == {None}

    openrouter = fixture_reply(STREAMS / "chat--openrouter-minimax-m2-error-chunk.jsonl")
    body = openrouter.body().decode()
    assert body.startswith(": OPENROUTER PROCESSING\n\n" * 17 + "data: {")
    assert body.endswith("data: [DONE]\n\n")

    nano = fixture_reply(STREAMS / "chat--openai-gpt-4.1-nano-text.jsonl")
    assert nano.done and nano.event_names is None

    responses = fixture_reply(STREAMS / "responses--openai-gpt-4o-text.jsonl")
    assert not responses.done
    payloads = fixture_payloads(STREAMS / "responses--openai-gpt-4o-text.jsonl")
    assert list(responses.event_names or []) == [json.loads(p)["type"] for p in payloads]
    assert responses.body().decode().startswith("event: response.created\ndata: {")


def test_fixture_payloads_are_verbatim() -> None:
    path = STREAMS / "chat--alibaba-qwen3-max-tool-call.jsonl"
    reply = fixture_reply(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert list(reply.payloads) == lines
    _, body = _raw_body(reply)
    assert body == "".join(f"data: {line}\n\n" for line in lines).encode() + b"data: [DONE]\n\n"


def test_stop_during_a_hang_returns_quickly() -> None:
    for hang in (HangReply(), HangReply(before_headers=True)):
        server = ScriptedServer([hang]).start()
        done = threading.Event()

        def client(url: str = server.chat_url, done: threading.Event = done) -> None:
            try:
                post(url)
            except httpx.HTTPError:
                pass
            finally:
                done.set()

        thread = threading.Thread(target=client, daemon=True)
        thread.start()
        server.wait_for_requests(1)
        server.stop()
        assert done.wait(60), "the client should see the connection end"


def test_hang_reply_sends_headers_first() -> None:
    with ScriptedServer([HangReply(seconds=0.1)]) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("POST", "/v1/chat/completions", body=b"{}")
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("content-type") == "text/event-stream"
        assert response.read() == b""
        connection.close()


async def test_works_from_async_tests() -> None:
    with ScriptedServer([text_reply("hi")]) as server:
        async with httpx.AsyncClient(trust_env=False, verify=TLS) as client:
            response = await client.post(server.chat_url, json={"model": "m"})
    assert response.status_code == 200
    assert b'"content": "hi"' in response.content


def test_parallel_requests_each_get_one_reply() -> None:
    replies = [RawReply(200, str(i).encode(), "text/plain") for i in range(8)]
    results: list[str] = []
    lock = threading.Lock()
    with ScriptedServer(replies) as server:

        def worker() -> None:
            text = post(server.chat_url).text
            with lock:
                results.append(text)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
    assert sorted(results) == [str(i) for i in range(8)]


def test_keep_alive_serves_each_reply_chunked_on_one_connection() -> None:
    replies = [
        SSEReply(["x" * 50, "y"], done=False, split_every=7),
        ErrorReply(429, {"error": {"message": "slow down"}}),
        RawReply(200, b"plain", "text/plain"),
    ]
    with ScriptedServer(replies, keep_alive=True, models=["m1"]) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        bodies = []
        sockets = []
        for method, path in [("POST", "/v1/chat/completions")] * 3 + [("GET", "/v1/models")]:
            connection.request(method, path, body=b"{}" if method == "POST" else None)
            response = connection.getresponse()
            assert response.getheader("transfer-encoding") == "chunked"
            assert response.getheader("connection") is None
            bodies.append((response.status, response.read()))
            assert not response.will_close
            sockets.append(connection.sock)
        connection.close()
    assert bodies == [
        (200, b"data: " + b"x" * 50 + b"\n\ndata: y\n\n"),
        (429, b'{"error": {"message": "slow down"}}'),
        (200, b"plain"),
        (200, b'{"object": "list", "data": [{"id": "m1", "object": "model"}]}'),
    ]
    assert all(sock is sockets[0] for sock in sockets)  # one connection answered them all
    assert len(server.requests) == 4


def test_without_keep_alive_each_reply_ends_its_connection() -> None:
    with ScriptedServer([RawReply(200, b"one", "text/plain")]) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("POST", "/v1/chat/completions", body=b"{}")
        response = connection.getresponse()
        assert response.read() == b"one"
        assert response.will_close
        connection.close()


def test_requests_record_the_connection_that_carried_them() -> None:
    with ScriptedServer([RawReply(200, b"a", "text/plain")] * 2, keep_alive=True) as server:
        kept = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        for _ in range(2):
            kept.request("POST", "/v1/chat/completions", body=b"{}")
            kept.getresponse().read()
        kept.close()
        assert post(server.chat_url).status_code == 500  # a new connection; the script is empty
    assert [request.connection for request in server.requests] == [1, 1, 2]
