"""Model listing and reachability against the scripted server (and a closed port)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from listed_provider import provider  # type: ignore[import-not-found]

from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.models import (
    check_all_reachable,
    check_reachable,
    fetch_models,
    list_all_models,
    parse_model_list,
)
from rho_kernel.providers.resolve import ResolvedProvider
from rho_kernel.testing.server import ScriptedServer, free_port


def closed_provider(name: str = "down") -> ResolvedProvider:
    return provider(f"http://127.0.0.1:{free_port()}/v1/models", name)


@contextmanager
def servers(count: int, **kwargs: Any) -> Iterator[list[ScriptedServer]]:
    with ExitStack() as stack:
        yield [stack.enter_context(ScriptedServer(**kwargs)) for _ in range(count)]


# --- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "ids"),
    [
        ({"object": "list", "data": [{"id": "a"}, {"id": "b"}]}, ["a", "b"]),
        ({"models": [{"id": "glm-4.6"}, {"slug": "glm-4.5"}]}, ["glm-4.6", "glm-4.5"]),
        ({"data": ["x", "y", "x"]}, ["x", "y"]),
        ([{"id": "bare"}], ["bare"]),
        ({"data": [{"name": "no id"}, {"id": ""}, 3, None, {"id": "ok"}]}, ["ok"]),
        ({"data": []}, []),
        ({"error": "nope"}, None),
        ("text", None),
    ],
)
def test_parse_model_list(payload: Any, ids: list[str] | None) -> None:
    assert parse_model_list(payload) == ids


# --- fetch_models -----------------------------------------------------------------------------


async def test_fetch_openai_shape_with_bearer_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHO_TEST_MODELS_KEY", "sk-models")
    with ScriptedServer(models=["gpt-a", "gpt-b"]) as server:
        ids = await fetch_models(provider(server.models_url, key_env="RHO_TEST_MODELS_KEY"))
        [recorded] = server.requests
    assert ids == ["gpt-a", "gpt-b"]
    assert recorded.method == "GET" and recorded.path == "/v1/models"
    assert recorded.headers["authorization"] == "Bearer sk-models"


async def test_fetch_without_key_sends_no_authorization() -> None:
    with ScriptedServer(models=["m"]) as server:
        assert await fetch_models(provider(server.models_url, key_env="RHO_TEST_UNSET_VAR")) == [
            "m"
        ]
        [recorded] = server.requests
    assert "authorization" not in recorded.headers


async def test_fetch_zai_shape() -> None:
    body = {"object": "list", "models": [{"id": "glm-4.6"}, {"slug": "glm-4.5-air"}]}
    with ScriptedServer(models_body=body) as server:
        assert await fetch_models(provider(server.models_url)) == ["glm-4.6", "glm-4.5-air"]


async def test_fetch_http_error_names_provider_and_url() -> None:
    body = {"error": {"message": "Invalid API key"}}
    with ScriptedServer(models_body=body, models_status=401) as server:
        url = server.models_url
        with pytest.raises(ProviderError) as info:
            await fetch_models(provider(url, "openai"))
    error = info.value
    assert error.kind == "http" and error.status == 401
    assert "openai" in error.message and url in error.message
    assert "Invalid API key" in error.message


async def test_fetch_invalid_json_is_a_decode_error() -> None:
    with ScriptedServer(models_body=b"<html>hi</html>") as server:
        url = server.models_url
        with pytest.raises(ProviderError) as info:
            await fetch_models(provider(url))
    assert info.value.kind == "decode"
    assert "prov" in info.value.message and url in info.value.message


async def test_fetch_unknown_shape_is_a_decode_error() -> None:
    with ScriptedServer(models_body={"items": []}) as server, pytest.raises(ProviderError) as info:
        await fetch_models(provider(server.models_url))
    assert info.value.kind == "decode"
    assert '"data" or "models"' in info.value.message


async def test_fetch_connection_refused() -> None:
    target = closed_provider()
    with pytest.raises(ProviderError) as info:
        await fetch_models(target)
    assert info.value.kind == "connect"
    assert "down" in info.value.message and target.models_endpoint in info.value.message


async def test_fetch_timeout() -> None:
    with (
        ScriptedServer(models=["m"], models_delay=5) as server,
        pytest.raises(ProviderError) as info,
    ):
        await fetch_models(provider(server.models_url), timeout=0.3)
    assert info.value.kind == "timeout" and info.value.retryable


# --- check_reachable --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "reachable"), [(200, True), (401, True), (404, True), (503, False)]
)
async def test_reachable_by_status(status: int, reachable: bool) -> None:
    with ScriptedServer(models_body={"data": []}, models_status=status) as server:
        assert await check_reachable(provider(server.models_url)) is reachable


async def test_unreachable_closed_port_and_bad_url() -> None:
    assert await check_reachable(closed_provider()) is False
    assert await check_reachable(provider("not a url/models")) is False


async def test_slow_endpoint_is_unreachable_within_the_timeout() -> None:
    # Were the timeout ignored, the listing would arrive (after 5 s) and count as reachable.
    with ScriptedServer(models=["m"], models_delay=5) as server:
        assert await check_reachable(provider(server.models_url), timeout=0.3) is False


@contextmanager
def barrier_servers(count: int) -> Iterator[list[str]]:
    """`count` model listings that answer only once all `count` requests have arrived (and
    503 when they have not within 60 s): every check succeeds only if they run at once."""
    barrier = threading.Barrier(count, timeout=60)

    class Listing(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            try:
                barrier.wait()
                status, body = 200, b'{"data": [{"id": "m"}]}'
            except threading.BrokenBarrierError:
                status, body = 503, b"{}"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpds = [ThreadingHTTPServer(("127.0.0.1", 0), Listing) for _ in range(count)]
    # A short poll: shutting a server down waits for its loop to look (0.5 s by default).
    threads = [threading.Thread(target=h.serve_forever, args=(0.005,), daemon=True) for h in httpds]
    for thread in threads:
        thread.start()
    try:
        yield [f"http://127.0.0.1:{h.server_address[1]}/v1/models" for h in httpds]
    finally:
        barrier.abort()
        for httpd in httpds:
            httpd.shutdown()
            httpd.server_close()


async def test_reachability_checks_run_concurrently() -> None:
    with barrier_servers(5) as urls:
        targets = [provider(url, f"waiting{i}") for i, url in enumerate(urls)]
        targets.insert(2, closed_provider())
        result = await check_all_reachable(targets, timeout=90)
    assert result == [True, True, False, True, True, True]


async def test_check_all_reachable_empty() -> None:
    assert await check_all_reachable([]) == []


# --- list_all_models --------------------------------------------------------------------------


async def test_list_all_models_in_provider_order_with_errors() -> None:
    with (
        ScriptedServer(models=["a1", "a2"]) as first,
        ScriptedServer(models_body={"models": [{"slug": "b1"}]}) as second,
        ScriptedServer(models_body={"error": "x"}, models_status=500) as broken,
    ):
        providers = [
            provider(first.models_url, "first"),
            closed_provider("down"),
            provider(second.models_url, "second"),
            provider(broken.models_url, "broken"),
        ]
        models, errors = await list_all_models(providers)
    assert models == [("a1", "first"), ("a2", "first"), ("b1", "second")]
    assert len(errors) == 2
    assert errors[0].startswith("down:") and "connection refused" in errors[0]
    assert errors[1].startswith("broken:") and "HTTP 500" in errors[1]


async def test_list_all_models_runs_concurrently_and_never_raises() -> None:
    with barrier_servers(4) as urls:
        targets = [provider(url, f"waiting{i}") for i, url in enumerate(urls)]
        targets.append(closed_provider())
        models, errors = await list_all_models(targets, timeout=90)
    assert models == [("m", f"waiting{i}") for i in range(4)]
    assert len(errors) == 1 and "connection refused" in errors[0]


async def test_list_all_models_empty() -> None:
    assert await list_all_models([]) == ([], [])


async def test_cancellation_propagates() -> None:
    with ScriptedServer(models=["m"], models_delay=5) as server:
        task = asyncio.create_task(list_all_models([provider(server.models_url)], timeout=10))
        await asyncio.to_thread(server.wait_for_requests, 1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)


# --- credentials in the models URL are masked -------------------------------------------------


def secret_provider(url: str) -> ResolvedProvider:
    scheme, rest = url.split("://", 1)
    return provider(f"{scheme}://me:pa55word@{rest}?api_key=SECRET-KEY", "")


def assert_masked(text: str) -> None:
    assert "pa55word" not in text and "SECRET-KEY" not in text, text
    assert "://***@127.0.0.1:" in text and "api_key=***" in text, text


@pytest.mark.parametrize(
    "server_args",
    [{"models_body": {"error": {"message": "no"}}, "models_status": 401}, {"models_body": b"<x>"}],
    ids=["http-status", "not-json"],
)
async def test_fetch_errors_show_the_url_masked(server_args: dict[str, Any]) -> None:
    with ScriptedServer(**server_args) as server, pytest.raises(ProviderError) as info:
        await fetch_models(secret_provider(server.models_url))
    assert_masked(info.value.message)
    assert_masked(info.value.endpoint)


async def test_listing_errors_show_the_url_masked() -> None:
    down = secret_provider(f"http://127.0.0.1:{free_port()}/v1/models")
    models, errors = await list_all_models([down])
    assert models == [] and len(errors) == 1
    assert_masked(errors[0])
