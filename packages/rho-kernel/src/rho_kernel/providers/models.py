"""Model discovery and reachability: `GET <models_endpoint>` on each provider.

These functions back the `listModels`, `listProviders` and `setModel` RPC methods (the one
startup request, on a first run without a model, is `providers.local_model`'s). Listing accepts the OpenAI shape
`{"data": [...]}`, the Z.ai shape `{"models": [...]}` and a bare list; each entry is an object
with an `id` (or `slug`) or a plain string.

Reachability means "something answered": any HTTP status below 500 within the timeout counts,
so a 401/403 (reachable, but the key is missing or wrong) and a 404 (a server without a model
list) are reachable, while a 5xx, a refused or failed connection, and a timeout are not.

httpx is imported on first use, not when this module is imported.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.resolve import ResolvedProvider
from rho_kernel.providers.urls import mask_urls_in
from rho_kernel.version import rho_version

if TYPE_CHECKING:
    import httpx

MODEL_LIST_LIMIT = 16 * 1024 * 1024
"""A model list body larger than this is refused (a misconfigured URL streaming a file)."""


def _headers(provider: ResolvedProvider) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": f"rho/{rho_version()}"}
    key = provider.api_key
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def _label(provider: ResolvedProvider) -> str:
    return provider.name or provider.shown_models_endpoint


def _decode_error(provider: ResolvedProvider, detail: str) -> ProviderError:
    url = provider.shown_models_endpoint
    return ProviderError(
        f"{_label(provider)}: the model list from {url} {detail}; set models_endpoint for this "
        "provider if the list lives elsewhere",
        kind="decode",
        provider=provider.name,
        endpoint=url,
        retryable=False,
    )


def parse_model_list(payload: Any) -> list[str] | None:
    """The model ids of a decoded model-list body, or None when its shape is unknown.

    Ids keep the server's order; duplicates and entries without an id are dropped.
    """
    entries: Any = None
    if isinstance(payload, dict):
        for key in ("data", "models"):
            if isinstance(payload.get(key), list):
                entries = payload[key]
                break
    elif isinstance(payload, list):
        entries = payload
    if entries is None:
        return None
    seen: set[str] = set()
    ids: list[str] = []
    for entry in entries:
        model_id: Any = entry
        if isinstance(entry, dict):
            model_id = entry.get("id")
            if not (isinstance(model_id, str) and model_id):
                model_id = entry.get("slug")
        if isinstance(model_id, str) and model_id and model_id not in seen:
            seen.add(model_id)
            ids.append(model_id)
    return ids


async def fetch_models(
    provider: ResolvedProvider,
    *,
    timeout: float = 5.0,
    client: httpx.AsyncClient | None = None,
) -> list[str]:
    """The model ids listed at `provider.models_endpoint`.

    Sends `Authorization: Bearer <key>` when the provider's key variable is set. The whole
    request (connect, headers and body) must finish within `timeout` seconds. Failures raise
    `ProviderError` naming the provider and URL: kind "connect" (nothing answered), "timeout",
    "http" (an error status) or "decode" (not JSON, or no `data`/`models` list).
    """
    import httpx

    from rho_kernel.providers.http import build_client, http_status_error, transport_error

    url = provider.models_endpoint
    own = client is None
    active = build_client(connect_timeout=timeout, endpoints=[url]) if client is None else client
    try:
        async with asyncio.timeout(timeout):
            response = await active.get(url, headers=_headers(provider))
    except TimeoutError:
        shown = provider.shown_models_endpoint
        raise ProviderError(
            f"{_label(provider)}: listing models at {shown} timed out after {timeout:g} s",
            kind="timeout",
            provider=provider.name,
            endpoint=shown,
            retryable=True,
        ) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise transport_error(exc, endpoint=url, provider=provider.name, responded=False) from exc
    finally:
        if own:
            await active.aclose()
    body = response.content
    if response.status_code >= 300 or response.status_code < 200:
        raise http_status_error(
            response.status_code,
            response.headers,
            body,
            endpoint=url,
            provider=provider.name,
            reason=response.reason_phrase,
        )
    if len(body) > MODEL_LIST_LIMIT:
        raise _decode_error(provider, f"is too large ({len(body)} bytes)")
    try:
        payload = json.loads(body)
    except ValueError:
        snippet = body[:120].decode("utf-8", "replace").strip()
        raise _decode_error(provider, f"is not JSON (body starts {snippet!r})") from None
    ids = parse_model_list(payload)
    if ids is None:
        raise _decode_error(provider, 'has no "data" or "models" list')
    return ids


async def check_reachable(
    provider: ResolvedProvider,
    *,
    timeout: float = 2.0,
    client: httpx.AsyncClient | None = None,
) -> bool:
    """Whether the provider's models endpoint answers with a status below 500 within `timeout`.

    A 401/403 counts as reachable (the server is there; the key is the problem). Only the
    status line and headers are awaited, never the body. Never raises (except cancellation).
    """
    try:
        from rho_kernel.providers.http import build_client

        own = client is None
        url = provider.models_endpoint
        active = (
            build_client(connect_timeout=timeout, endpoints=[url]) if client is None else client
        )
        try:
            async with (
                asyncio.timeout(timeout),
                active.stream("GET", url, headers=_headers(provider)) as resp,
            ):
                return resp.status_code < 500
        finally:
            if own:
                await active.aclose()
    except Exception:
        return False


async def _models_or_error(
    provider: ResolvedProvider, timeout: float, client: httpx.AsyncClient
) -> list[str] | str:
    try:
        return await fetch_models(provider, timeout=timeout, client=client)
    except ProviderError as exc:
        return exc.message
    except Exception as exc:  # never let one provider break the listing
        return mask_urls_in(
            f"{_label(provider)}: listing models at {provider.shown_models_endpoint} failed: {exc}"
        )


async def list_all_models(
    providers: Sequence[ResolvedProvider], *, timeout: float = 5.0
) -> tuple[list[tuple[str, str]], list[str]]:
    """Every provider's models, fetched concurrently.

    Returns `([(model_id, provider_name), ...], [error message, ...])`: models in provider
    order (then the server's order), and one message per provider whose listing failed.
    Never raises (except cancellation).
    """
    if not providers:
        return [], []
    from rho_kernel.providers.http import build_client

    endpoints = [provider.models_endpoint for provider in providers]
    client = build_client(connect_timeout=timeout, endpoints=endpoints)
    try:
        results = await asyncio.gather(
            *(_models_or_error(provider, timeout, client) for provider in providers)
        )
    finally:
        await client.aclose()
    models: list[tuple[str, str]] = []
    errors: list[str] = []
    for provider, result in zip(providers, results, strict=True):
        if isinstance(result, str):
            errors.append(result)
        else:
            models.extend((model_id, provider.name) for model_id in result)
    return models, errors


async def check_all_reachable(
    providers: Sequence[ResolvedProvider], *, timeout: float = 2.0
) -> list[bool]:
    """`check_reachable` for every provider, concurrently; one bool per provider, in order."""
    if not providers:
        return []
    from rho_kernel.providers.http import build_client

    endpoints = [provider.models_endpoint for provider in providers]
    client = build_client(connect_timeout=timeout, endpoints=endpoints)
    try:
        return list(
            await asyncio.gather(
                *(check_reachable(p, timeout=timeout, client=client) for p in providers)
            )
        )
    finally:
        await client.aclose()


__all__ = [
    "check_all_reachable",
    "check_reachable",
    "fetch_models",
    "list_all_models",
    "parse_model_list",
]
