"""GET one crates.io API URL with httpx and decode its JSON: a User-Agent, a deadline, a
few redirects and a capped body. httpx is imported on the first request, never at startup.

Proxies from the environment (`HTTPS_PROXY`, `NO_PROXY`, …) are honoured: the host is fixed
(never chosen by the model), and a user behind a proxy reaches crates.io only through it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
from typing import Any
from urllib.parse import urlsplit

from rho_kernel import scrub_json, scrub_surrogates
from rho_tools_rust import __version__

#: The public API; `RHO_CRATES_IO_API` replaces it (a mirror, or a local server in tests).
CRATES_IO_API = "https://crates.io/api/v1"
API_ENV = "RHO_CRATES_IO_API"
USER_AGENT = f"rho (coding agent) rho-tools-rust/{__version__}"
TIMEOUT_SECS = 10.0
MAX_REDIRECTS = 3
MAX_BODY_BYTES = 2 * 1024 * 1024


class CratesIoError(Exception):
    """A lookup that failed, with the message meant for the model (no tool-name prefix)."""


class NotFound(CratesIoError):
    """crates.io answered 404."""


def api_base() -> str:
    """The API root: `RHO_CRATES_IO_API` when set (http or https only), else crates.io."""
    base = os.environ.get(API_ENV, "").strip() or CRATES_IO_API
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CratesIoError(f"{API_ENV} must be an http(s) URL, not {base[:100]!r}")
    return base.rstrip("/")


async def fetch_json(url: str, *, timeout: float = TIMEOUT_SECS) -> Any:
    """The decoded JSON body of `GET url` (strings scrubbed of lone surrogates).

    Raises `NotFound` on 404 and `CratesIoError` when crates.io cannot be reached within
    `timeout` seconds, answers another error status, sends more than 2 MiB or no JSON."""
    import httpx

    try:
        async with asyncio.timeout(timeout):
            status, reason, body = await _get(httpx, url, timeout)
    except TimeoutError:
        raise CratesIoError(f"cannot reach crates.io (no answer within {timeout:g} s)") from None
    except httpx.TooManyRedirects:
        raise CratesIoError(f"crates.io redirected more than {MAX_REDIRECTS} times") from None
    except httpx.TimeoutException:
        raise CratesIoError(f"cannot reach crates.io (no answer within {timeout:g} s)") from None
    except (httpx.TransportError, OSError) as exc:
        raise CratesIoError(f"cannot reach crates.io ({_reason(exc)})") from None
    if status == 404:
        raise NotFound("not found")
    if status != 200:
        raise CratesIoError(_status_message(status, reason, body))
    try:
        return scrub_json(json.loads(body))
    except (ValueError, RecursionError):
        raise CratesIoError("crates.io sent a response that is not valid JSON") from None


@functools.cache
def _tls_context(cert_file: str, cert_dir: str) -> Any:
    """What httpx makes for `verify=True` with the environment (`SSL_CERT_FILE`,
    `SSL_CERT_DIR`, else certifi's authorities), made once per pair of settings rather than
    for every request (reading the authorities takes tens of milliseconds of CPU)."""
    import httpx

    return httpx.create_ssl_context(trust_env=True)


async def _get(httpx: Any, url: str, timeout: float) -> tuple[int, str, bytes]:
    """Status, reason and body (at most `MAX_BODY_BYTES`) of `GET url`."""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    async with (
        httpx.AsyncClient(
            timeout=timeout,
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            headers=headers,
            verify=_tls_context(
                os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", "")
            ),
        ) as client,
        client.stream("GET", url) as response,
    ):
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise CratesIoError(_too_large())
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > MAX_BODY_BYTES:
                raise CratesIoError(_too_large())
        return response.status_code, response.reason_phrase, bytes(data)


def _too_large() -> str:
    return f"crates.io sent a response over {MAX_BODY_BYTES // (1024 * 1024)} MiB; it was dropped"


def _reason(exc: BaseException) -> str:
    """A short, one-line cause for a transport failure: the operating system's words
    (`Connection refused`, `Name or service not known`) when the error chain holds them."""
    cause: BaseException | None = exc
    for _ in range(10):  # httpx wraps the OSError ("All connection attempts failed")
        if cause is None:
            break
        if isinstance(cause, OSError) and (cause.strerror or cause.errno):
            errno = cause.errno
            # asyncio words a refusal "Connect call failed (…)"; gaierror's numbers are < 0
            words = os.strerror(errno) if isinstance(errno, int) and errno > 0 else cause.strerror
            return scrub_surrogates(str(words)[:200])
        cause = cause.__cause__ or cause.__context__
    text = " ".join(str(exc).split()) or type(exc).__name__
    return scrub_surrogates(text[:200])


def _status_message(status: int, reason: str, body: bytes) -> str:
    """`crates.io answered HTTP 500 (Internal Server Error)` plus the API's own detail."""
    text = f"crates.io answered HTTP {status}" + (f" ({reason})" if reason else "")
    if status == 429:
        text += "; it limits how often it may be asked: try again in a little while"
    detail = _error_detail(body)
    return f"{text}: {detail}" if detail else text


def _error_detail(body: bytes) -> str:
    """The first `errors[].detail` of a crates.io error body, on one line, ≤ 200 chars."""
    try:
        errors = json.loads(body).get("errors")
        detail = errors[0]["detail"] if isinstance(errors, list) and errors else ""
    except (ValueError, AttributeError, KeyError, TypeError, IndexError, RecursionError):
        return ""
    if not isinstance(detail, str):
        return ""
    return scrub_surrogates(" ".join(detail.split())[:200])


__all__ = [
    "API_ENV",
    "CRATES_IO_API",
    "MAX_BODY_BYTES",
    "MAX_REDIRECTS",
    "TIMEOUT_SECS",
    "USER_AGENT",
    "CratesIoError",
    "NotFound",
    "api_base",
    "fetch_json",
]
