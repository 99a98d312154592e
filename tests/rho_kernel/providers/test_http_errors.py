"""HTTP-level failures mapped to ProviderError: connect, statuses, content types, Retry-After."""

from __future__ import annotations

import asyncio
import email.utils
from typing import Any

import pytest

from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.providers.events import ModelRequest, ProviderError
from rho_kernel.providers.http import (
    body_snippet,
    error_message_from_payload,
    is_local_endpoint,
    parse_retry_after,
)
from rho_kernel.testing.replies import ErrorReply, RawReply, Reply
from rho_kernel.testing.server import ScriptedServer, free_port


async def fail(endpoint: str, provider: str = "prov") -> ProviderError:
    service = ChatCompletionsService(endpoint, "k", provider)
    request = ModelRequest(model="m", messages=[{"role": "user", "content": "hi"}])

    async def run() -> None:
        async for _ in service.stream(request):
            pass

    try:
        with pytest.raises(ProviderError) as info:
            await asyncio.wait_for(run(), 10)
    finally:
        await service.aclose()
    return info.value


async def fail_with(reply: Reply, provider: str = "prov") -> ProviderError:
    with ScriptedServer([reply]) as server:
        error = await fail(server.chat_url, provider)
        assert error.endpoint == server.chat_url
        return error


async def test_connection_refused() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/v1/chat/completions"
    error = await fail(endpoint)
    assert error.kind == "connect"
    assert error.retryable
    assert error.status is None
    assert endpoint in error.message
    assert "connection refused" in error.message
    assert error.reason == "refused"
    assert "Is the model server running?" in error.hint
    assert error.hint in str(error)


async def test_invalid_url_is_not_retryable() -> None:
    error = await fail("localhost:1234/v1/chat/completions")
    assert error.kind == "connect"
    assert not error.retryable
    assert "invalid endpoint URL" in error.message


async def test_429_with_retry_after_seconds() -> None:
    reply = ErrorReply(
        429, {"error": {"message": "Rate limit reached for requests"}}, headers={"Retry-After": "2"}
    )
    error = await fail_with(reply)
    assert error.kind == "http"
    assert error.status == 429
    assert error.retryable
    assert error.retry_after == 2.0
    assert "Rate limit reached for requests" in error.message


async def test_retry_after_http_date() -> None:
    when = email.utils.formatdate(usegmt=True)  # now; the parsed delay is clamped at >= 0
    error = await fail_with(ErrorReply(503, "busy", headers={"Retry-After": when}))
    assert error.retryable
    assert error.retry_after is not None and 0.0 <= error.retry_after <= 1.0


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504])
async def test_retryable_statuses(status: int) -> None:
    error = await fail_with(ErrorReply(status))
    assert error.kind == "http"
    assert error.status == status
    assert error.retryable


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_client_errors_are_not_retryable(status: int) -> None:
    error = await fail_with(ErrorReply(status, headers={"Retry-After": "5"}))
    assert error.kind == "http"
    assert not error.retryable
    assert error.retry_after is None


async def test_400_message_names_provider_status_and_error_message() -> None:
    body = {
        "error": {
            "message": "The model `nope` does not exist",
            "type": "invalid_request_error",
            "code": "model_not_found",
        }
    }
    error = await fail_with(ErrorReply(400, body), provider="openrouter")
    assert error.provider == "openrouter"
    assert error.message.startswith("openrouter: HTTP 400")
    assert "The model `nope` does not exist" in error.message
    assert "model_not_found" in error.message


async def test_401_hints_at_the_api_key() -> None:
    error = await fail_with(ErrorReply(401, {"error": "invalid api key"}))
    assert "invalid api key" in error.message
    assert "API key" in error.hint and "API key" in str(error)


async def test_html_error_page_is_summarised() -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"
    error = await fail_with(RawReply(502, page, "text/html"))
    assert error.kind == "http" and error.retryable
    assert "502 Bad Gateway" in error.message
    assert "<" not in error.message.split(":", 3)[-1]


async def test_long_error_body_is_truncated() -> None:
    error = await fail_with(ErrorReply(500, "x" * 10_000, content_type="text/plain"))
    assert len(error.message) < 600


async def test_html_200_is_a_decode_error() -> None:
    error = await fail_with(RawReply(200, b"<html><body>Welcome to LM Studio</body></html>"))
    assert error.kind == "decode"
    assert not error.retryable
    assert "prov" in error.message and "text/html" in error.message


async def test_empty_200_is_a_decode_error() -> None:
    error = await fail_with(RawReply(200, b"", ""))
    assert error.kind == "decode"
    assert not error.retryable
    assert "empty body" in error.message and "no Content-Type" in error.message


async def test_json_200_instead_of_a_stream_is_a_decode_error() -> None:
    error = await fail_with(RawReply(200, b'{"choices": []}', "application/json"))
    assert error.kind == "decode"
    assert "application/json" in error.message


async def test_redirect_is_reported() -> None:
    reply = RawReply(301, b"", "text/plain", headers={"Location": "https://example.test/v1"})
    error = await fail_with(reply)
    assert error.kind == "http" and error.status == 301
    assert "https://example.test/v1" in error.message


def test_parse_retry_after() -> None:
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("soon") is None
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"error": {"message": "m", "code": "c"}}, "m (code c)"),
        ({"error": {"message": "m", "type": "t"}}, "m (code t)"),
        ({"error": {"message": "m"}}, "m"),
        ({"error": {"code": 500}}, "code 500"),
        ({"error": "plain"}, "plain"),
        ({"message": "top"}, "top"),
        ({"detail": "Not Found"}, "Not Found"),
        ([{"error": {"message": "listed"}}], "listed"),
        ({"error": None}, None),
        ("text", None),
    ],
)
def test_error_message_from_payload(payload: Any, expected: str | None) -> None:
    assert error_message_from_payload(payload) == expected


def test_body_snippet() -> None:
    assert body_snippet(b"") == "(empty body)"
    assert body_snippet(b'{"error": {"message": "bad"}}') == "bad"
    assert body_snippet(b"  some\n\n text  ") == "some text"


def test_is_local_endpoint() -> None:
    assert is_local_endpoint("http://localhost:1234/v1/chat/completions")
    assert is_local_endpoint("http://127.0.0.1:8080/v1")
    assert is_local_endpoint("http://[::1]:8080/v1")
    assert not is_local_endpoint("https://openrouter.ai/api/v1/chat/completions")


async def test_remote_connect_error_hint() -> None:
    # A reserved TLD never resolves; no network is needed to see the failure.
    error = await fail("http://rho-test.invalid/v1/chat/completions")
    assert error.kind == "connect"
    assert "rho-test.invalid" in error.message
    # A name that does not exist never starts to: no retry. (A resolver that could not be
    # asked at all is a temporary failure, worth retrying.)
    assert (error.reason, error.retryable) in (("dns", False), ("dns_temporary", True))
    assert "host name" in error.hint


# ── credentials in the endpoint URL never reach a message ──────────────────────────────────


def with_credentials(url: str) -> str:
    """`url` with a password in its userinfo and an API key in its query."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://alice:s3cret-pw@{rest}?api_key=SECRET-KEY&model=x"


def assert_masked(error: ProviderError) -> None:
    for text in (error.message, error.endpoint, str(error)):
        assert "s3cret-pw" not in text and "SECRET-KEY" not in text, text
    assert "***@127.0.0.1" in error.message and "api_key=***&model=x" in error.message
    assert error.endpoint.startswith("http://***@127.0.0.1:")


async def test_connect_error_masks_credentials_in_the_endpoint() -> None:
    error = await fail(with_credentials(f"http://127.0.0.1:{free_port()}/v1/chat/completions"))
    assert error.kind == "connect" and "connection refused" in error.message
    assert_masked(error)


@pytest.mark.parametrize(
    "reply",
    [
        ErrorReply(401, {"error": {"message": "bad key"}}),
        RawReply(200, b"<html>hi</html>", "text/html"),
    ],
    ids=["http-status", "wrong-content-type"],
)
async def test_response_errors_mask_credentials_in_the_endpoint(reply: Reply) -> None:
    with ScriptedServer([reply]) as server:
        error = await fail(with_credentials(server.chat_url))
    assert error.kind in ("http", "decode")
    assert_masked(error)


async def test_redirect_target_is_shown_masked() -> None:
    location = "https://bob:pw2@example.test/v1?token=TOKEN-123"
    error = await fail_with(RawReply(302, b"", "text/plain", headers={"Location": location}))
    assert "redirect to https://***@example.test/v1?token=***" in error.message
    assert "TOKEN-123" not in error.message and "pw2" not in error.message


def test_transport_error_masks_urls_quoted_by_httpx() -> None:
    import httpx

    from rho_kernel.providers.http import transport_error

    endpoint = "https://alice:s3cret-pw@api.example.test/v1/chat/completions?key=SECRET-KEY"
    exc = httpx.ReadError(f"peer closed while reading {endpoint}")
    for responded in (True, False):
        error = transport_error(exc, endpoint=endpoint, provider="", responded=responded)
        assert "s3cret-pw" not in error.message and "SECRET-KEY" not in error.message
        assert "https://***@api.example.test/v1/chat/completions?key=***" in error.message
    invalid = transport_error(
        httpx.UnsupportedProtocol("bad"),
        endpoint="localhost:1234/v1?api_key=SECRET-KEY",
        provider="p",
        responded=False,
    )
    assert "invalid endpoint URL" in invalid.message and "SECRET-KEY" not in invalid.message
