"""`fetch` for extensions, with httpx: http and https only, no proxies from the environment,
a timeout, at most a few redirects and a capped body. Imported on the first fetch."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from rho_ext_js.host import HostError

MAX_REDIRECTS = 5


async def fetch(request: dict[str, Any], max_bytes: int, timeout: float) -> dict[str, Any]:
    """Send `request` (`url`, `method`, `headers`, `body`) and answer `{status, statusText,
    headers, body, url}`; a refusal or failure is a `HostError`."""
    url = str(request.get("url", ""))
    if urlsplit(url).scheme not in ("http", "https"):
        raise HostError(f"fetch: only http and https URLs are allowed, not {url[:100]!r}")
    method = str(request.get("method") or "GET").upper()
    headers = {str(k): str(v) for k, v in dict(request.get("headers") or {}).items()}
    body = request.get("body")
    try:
        async with (
            httpx.AsyncClient(
                trust_env=False, timeout=timeout, follow_redirects=True, max_redirects=MAX_REDIRECTS
            ) as client,
            client.stream(method, url, headers=headers, content=body) as response,
        ):
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > max_bytes:
                    raise HostError(f"fetch: {url[:100]}: the body is over {max_bytes} bytes")
            return {
                "status": response.status_code,
                "statusText": response.reason_phrase,
                "headers": dict(response.headers.items()),
                "body": bytes(data).decode(response.encoding or "utf-8", errors="replace"),
                "url": str(response.url),
            }
    except httpx.HTTPError as exc:
        raise HostError(f"fetch: {url[:100]}: {type(exc).__name__}: {exc}") from None


__all__ = ["fetch"]
