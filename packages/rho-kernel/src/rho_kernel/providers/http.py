"""Shared httpx plumbing for the protocol services: the client and error mapping.

Only the provider protocol modules import this module (and with it httpx), on the first request.
Every failure is turned into a `ProviderError` whose message names the provider or endpoint,
whose hint says what to do, and whose `retryable` flag tells the agent loop whether to back off
and retry.
"""

from __future__ import annotations

import email.utils
import functools
import json
import re
import socket
import ssl
import time
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.resolve import is_local_endpoint
from rho_kernel.providers.urls import mask_url, mask_urls_in

CONNECT_TIMEOUT = 30.0
"""Seconds allowed to open a connection (read timeouts are enforced per stream)."""

RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying after a back-off."""

ERROR_BODY_LIMIT = 64 * 1024
"""At most this many bytes of an error body are read."""

SNIPPET_CHARS = 300

WRONG_API_HINT = (
    "Check that the endpoint URL is the provider's streaming API "
    '(ending in /chat/completions, or /responses for api = "responses").'
)

_TAG = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.IGNORECASE | re.DOTALL)
_SPACE = re.compile(r"\s+")


def build_client(
    *, connect_timeout: float = CONNECT_TIMEOUT, endpoints: Iterable[str] = ()
) -> httpx.AsyncClient:
    """A new `httpx.AsyncClient` for model requests to `endpoints`.

    Connecting may take `connect_timeout` seconds; reads have no httpx timeout because the
    services enforce first-token and idle timeouts per stream. Proxy and other environment
    settings are ignored, and redirects are not followed (a redirect is reported as an error).

    When every URL in `endpoints` is a plain `http://` one (a local model server, say), the
    client loads no CA certificates: its TLS context trusts none, so an `https://` request
    through it is refused. Otherwise (or with no `endpoints`) TLS is fully verified, with the
    certificate authorities read once per process and shared by every such client.
    """
    timeout = httpx.Timeout(
        connect=connect_timeout, read=None, write=connect_timeout, pool=connect_timeout
    )
    # Building a verifying context parses the whole CA bundle: for nothing on http://.
    verify = _trusting_none() if _all_plain_http(endpoints) else _verifying_context()
    return httpx.AsyncClient(
        timeout=timeout, trust_env=False, follow_redirects=False, verify=verify
    )


@functools.cache
def _verifying_context() -> ssl.SSLContext:
    """What httpx makes for `verify=True` without the environment (certifi's authorities),
    made once per process rather than once per client (tens of milliseconds of CPU each)."""
    return httpx.create_ssl_context(trust_env=False)


def _trusting_none() -> ssl.SSLContext:
    """A context that verifies certificates and host names and trusts no authority."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _all_plain_http(endpoints: Iterable[str]) -> bool:
    """True when there is at least one URL and every one has the scheme `http`."""
    schemes = []
    for url in endpoints:
        try:
            schemes.append(urlsplit(url.strip()).scheme.lower())
        except ValueError:
            return False
    return bool(schemes) and all(scheme == "http" for scheme in schemes)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` value (delta seconds or an HTTP date), or None."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # reject NaN
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def retry_after_from_headers(headers: Mapping[str, str]) -> float | None:
    """The retry hint in seconds from `retry-after-ms` or `Retry-After`, if any."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def _label(provider: str, endpoint: str) -> str:
    return provider or endpoint or "model provider"


def _shorten(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = _SPACE.sub(" ", text).strip()
    if len(text) > limit:
        return text[: limit - 1].rstrip() + "…"
    return text


def error_message_from_payload(payload: Any) -> str | None:
    """The human message (with its code) of a JSON error payload, or None if it has none.

    Understands `{"error": {"message", "code", "type"}}`, `{"error": "text"}`,
    `{"message": ...}`, `{"detail": ...}` and a one-element list of those.
    """
    if isinstance(payload, list) and payload:
        payload = payload[0]
    if not isinstance(payload, dict):
        return None
    error = payload.get("error", payload)
    if isinstance(error, str):
        return error or None
    if not isinstance(error, dict):
        return None
    message = error.get("message")
    if message is None:
        message = error.get("detail")
    if message is not None and not isinstance(message, str):
        message = json.dumps(message, ensure_ascii=False)
    code = error.get("code")
    if code is None:
        code = error.get("type")
    if not message:
        return f"code {code}" if code not in (None, "") else None
    if code not in (None, "") and str(code) not in message:
        return f"{message} (code {code})"
    return message


def body_snippet(body: bytes, content_type: str = "") -> str:
    """A short, single-line description of an error body: its error message or its start."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return "(empty body)"
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    message = error_message_from_payload(payload) if payload is not None else None
    if message:
        return _shorten(message)
    if "html" in content_type.lower() or text.lstrip().startswith("<"):
        text = _TAG.sub(" ", text)
    return _shorten(text)


def status_hint(status: int | None) -> str:
    """What to do about an error status, in general terms ("" when there is nothing to say)."""
    if status is None:
        return ""
    if status in (401, 403):
        return "Check the API key (api_key_env) for this provider."
    if status == 404:
        return "Check the endpoint URL and the model name."
    if status == 429:
        return "The provider is rate limiting requests."
    if 300 <= status < 400:
        return "Point the endpoint at the final URL."
    return ""


def http_status_error(
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    endpoint: str,
    provider: str,
    reason: str = "",
) -> ProviderError:
    """The `ProviderError` (kind "http") for a response with an error or redirect status."""
    endpoint = mask_url(endpoint)
    label = _label(provider, endpoint)
    status_text = f"HTTP {status}" + (f" {reason}" if reason else "")
    detail = body_snippet(body, headers.get("content-type", ""))
    if 300 <= status < 400 and headers.get("location"):
        detail = f"redirect to {mask_url(headers['location'])}"
    detail = detail.rstrip(".")
    message = f"{label}: {status_text} from {endpoint}: {detail}."
    retryable = status in RETRYABLE_STATUSES
    return ProviderError(
        message,
        kind="http",
        provider=provider,
        endpoint=endpoint,
        status=status,
        retryable=retryable,
        retry_after=retry_after_from_headers(headers) if retryable else None,
        hint=status_hint(status),
    )


async def read_error_body(response: httpx.Response, limit: int = ERROR_BODY_LIMIT) -> bytes:
    """Read at most `limit` bytes of a streamed response body (for error messages)."""
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    except httpx.HTTPError:
        pass  # a partial body is good enough for a message
    return b"".join(parts)[:limit]


def media_type(content_type: str) -> str:
    """The lower-case media type of a Content-Type value, without parameters."""
    return content_type.split(";", 1)[0].strip().lower()


async def check_response(
    response: httpx.Response,
    *,
    endpoint: str,
    provider: str,
    expected: str = "text/event-stream",
) -> None:
    """Raise a `ProviderError` unless `response` is a 2xx with the `expected` media type.

    Error and redirect statuses give kind "http" (the body is read for the message); a success
    with another content type (an HTML page, an empty body, plain JSON) gives kind "decode".
    """
    status = response.status_code
    if status >= 300 or status < 200:
        body = await read_error_body(response)
        raise http_status_error(
            status,
            response.headers,
            body,
            endpoint=endpoint,
            provider=provider,
            reason=response.reason_phrase,
        )
    content_type = response.headers.get("content-type", "")
    if media_type(content_type) == expected:
        return
    body = await read_error_body(response, 4096)
    endpoint = mask_url(endpoint)
    label = _label(provider, endpoint)
    shown = content_type or "no Content-Type"
    what = "an empty body" if not body.strip() else f"body starting {body_snippet(body)!r}"
    raise ProviderError(
        f"{label}: expected a {expected} stream from {endpoint} but got HTTP {status} with "
        f"{shown} and {what}",
        kind="decode",
        provider=provider,
        endpoint=endpoint,
        status=status,
        retryable=False,
        hint=WRONG_API_HINT,
    )


def _exception_chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


#: Resolver errors that say the name does not exist (retrying will not make it exist).
_NO_SUCH_NAME = frozenset(
    code
    for code in (
        getattr(socket, "EAI_NONAME", None),
        getattr(socket, "EAI_NODATA", None),
        getattr(socket, "EAI_ADDRFAMILY", None),
    )
    if code is not None
)
_NO_SUCH_NAME_TEXT = (
    "name or service not known",
    "nodename nor servname",
    "no address associated",
)


def _dns_reason(chain: list[BaseException], lowered: str) -> str | None:
    """ "dns" (the name does not exist), "dns_temporary" (the resolver failed), or None."""
    for cause in chain:
        if isinstance(cause, socket.gaierror):
            return "dns" if cause.errno in _NO_SUCH_NAME else "dns_temporary"
    if any(text in lowered for text in _NO_SUCH_NAME_TEXT):
        return "dns"
    if "getaddrinfo" in lowered or "name resolution" in lowered:
        return "dns_temporary"
    return None


def connect_reason(exc: BaseException) -> tuple[str, str]:
    """Why a connection could not open: (reason code, words). The codes are those of
    `ProviderError.reason`; "" when the cause is not recognised."""
    chain = _exception_chain(exc)
    text = str(exc).strip()
    lowered = " ".join(str(cause) for cause in chain).lower()
    if any(isinstance(cause, ConnectionRefusedError) for cause in chain) or "refused" in lowered:
        return "refused", "connection refused"
    dns = _dns_reason(chain, lowered)
    if dns == "dns":
        return dns, "host name not found"
    if dns is not None:
        return dns, "the host name could not be looked up"
    if isinstance(exc, httpx.ConnectTimeout) or "timed out" in lowered:
        return "timeout", "timed out"
    if "certificate" in lowered or "ssl" in lowered:
        return "tls", f"TLS error: {_shorten(text, 160)}"
    if "unreachable" in lowered:
        return "unreachable", "network unreachable"
    return "", _shorten(text, 160) or type(exc).__name__


#: Connect failures that no retry can mend: the name does not exist, the TLS setup is wrong.
_PERMANENT_REASONS = frozenset({"dns", "tls"})


def connect_hint(reason: str, endpoint: str) -> str:
    """What to check after a connect failure, in general terms."""
    if reason == "refused" and is_local_endpoint(endpoint):
        return "Is the model server running? Start it, or check the port."
    if reason == "dns":
        return "Check the host name in the endpoint URL."
    if reason == "tls":
        return "Check the endpoint's scheme (http:// or https://) and its certificate."
    return "Check the endpoint URL and your network connection."


def connect_error(exc: BaseException, *, endpoint: str, provider: str) -> ProviderError:
    """The `ProviderError` (kind "connect") for a connection that could not open.

    Retryable, except when the host name does not exist or TLS failed."""
    endpoint = mask_url(endpoint)
    reason, words = connect_reason(exc)
    message = f"could not connect to {endpoint} ({mask_urls_in(words)})"
    if provider:
        message = f"{provider}: {message}"
    return ProviderError(
        message,
        kind="connect",
        provider=provider,
        endpoint=endpoint,
        retryable=reason not in _PERMANENT_REASONS,
        reason=reason,
        hint=connect_hint(reason, endpoint),
    )


def transport_error(
    exc: Exception, *, endpoint: str, provider: str, responded: bool
) -> ProviderError:
    """Map an httpx (or URL) exception to a `ProviderError`.

    `responded` says whether response headers had arrived: a dropped connection before that is
    a "connect" failure, after it a "stream" failure. Both are retryable, as are timeouts; a bad
    URL and a body that cannot be decoded are not. URLs in the texts are shown masked.
    """
    endpoint = mask_url(endpoint)
    label = _label(provider, endpoint)
    text = mask_urls_in(str(exc))
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return ProviderError(
            f"{label}: invalid endpoint URL {endpoint!r} ({text})",
            kind="connect",
            provider=provider,
            endpoint=endpoint,
            retryable=False,
            reason="invalid_url",
            hint="Use a full URL such as http://localhost:1234/v1/chat/completions.",
        )
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.ProxyError):
        return connect_error(exc, endpoint=endpoint, provider=provider)
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(
            f"{label}: request to {endpoint} timed out ({type(exc).__name__})",
            kind="timeout",
            provider=provider,
            endpoint=endpoint,
            retryable=True,
        )
    if isinstance(exc, httpx.DecodingError):
        return ProviderError(
            f"{label}: could not decode the response body from {endpoint}: {text}",
            kind="decode",
            provider=provider,
            endpoint=endpoint,
            retryable=False,
        )
    detail = _shorten(text, 200) or type(exc).__name__
    if not responded:
        return ProviderError(
            f"{label}: the connection to {endpoint} failed before a response arrived ({detail})",
            kind="connect",
            provider=provider,
            endpoint=endpoint,
            retryable=True,
            reason="closed",
            hint="The server may have crashed or closed the connection.",
        )
    return ProviderError(
        f"{label}: the stream from {endpoint} broke off ({detail})",
        kind="stream",
        provider=provider,
        endpoint=endpoint,
        retryable=True,
    )


#: In-band error codes (in a stream's `error` object) worth retrying.
RETRYABLE_ERROR_CODES = frozenset(
    {
        "rate_limit_exceeded",
        "server_error",
        "server_is_overloaded",
        "overloaded",
        "overloaded_error",
        "slow_down",
        "timeout",
    }
)


def stream_error(
    error: Any, *, label: str, what: str, provider: str, endpoint: str
) -> ProviderError:
    """A `ProviderError(kind="stream")` for an error object sent inside a stream.

    Retryable when its status (`status_code`/`status`, or a numeric `code`) is retryable or its
    code (or type) names a rate limit or server trouble.
    """
    message = error_message_from_payload({"error": error}) or json.dumps(error, ensure_ascii=False)
    status: int | None = None
    code: Any = None
    if isinstance(error, dict):
        code = error.get("code")
        if code is None:
            code = error.get("type")
        raw_status = error.get("status_code", error.get("status"))
        if isinstance(raw_status, int) and not isinstance(raw_status, bool):
            status = raw_status
        elif isinstance(code, int) and not isinstance(code, bool):
            status = code
    retryable = status in RETRYABLE_STATUSES or (
        isinstance(code, str) and code in RETRYABLE_ERROR_CODES
    )
    return ProviderError(
        f"{label}: {what}: {message}",
        kind="stream",
        provider=provider,
        endpoint=endpoint,
        retryable=retryable,
    )


__all__ = [
    "CONNECT_TIMEOUT",
    "RETRYABLE_ERROR_CODES",
    "RETRYABLE_STATUSES",
    "body_snippet",
    "build_client",
    "check_response",
    "connect_error",
    "connect_hint",
    "connect_reason",
    "error_message_from_payload",
    "http_status_error",
    "media_type",
    "parse_retry_after",
    "read_error_body",
    "retry_after_from_headers",
    "status_hint",
    "stream_error",
    "transport_error",
]
