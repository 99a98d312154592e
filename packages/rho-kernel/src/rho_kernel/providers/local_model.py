"""First run: which model a local server has loaded, asked once at startup.

Only when nothing names a model (no `--model`, `[agent] model`, provider `default_model` or
`RHO_MODEL`) and the active provider runs on this machine does rho ask the provider's models
endpoint, with a short timeout, and use the model the server reports loaded. The request uses
the standard library (`http.client`), so the startup path stays free of httpx.

Understood listings (entries under `data`, `models`, or a bare list):

- OpenAI shape, as LM Studio's and Ollama's `/v1/models` serve it: `{"data": [{"id": ...}]}`;
- LM Studio's REST listings: `"state": "loaded"` (`/api/v0/models`) or a non-empty
  `"loaded_instances"` (`/api/v1/models`, ids under `"key"`);
- Ollama's `/api/tags` and `/api/ps` (ids under `"name"` or `"model"`);
- `"loaded": true` and `"status": "loaded"` (or `{"value": "loaded"}`) from other servers.

The first entry marked loaded wins; when the listing marks none, the first entry does.
Embedding models (`"type": "embedding(s)"`, or "embed" in the id) are passed over, since they
cannot chat, unless they are all there is.

When the server does not answer, or lists no model, rho does not guess a name: it starts with
no model chosen (`first_run_choice` says why, in one message that names the server's address
and how to choose one), and asks again when a prompt comes (`first_run_choice` once more).
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any
from urllib.parse import unquote, urlsplit

from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.resolve import ResolvedProvider
from rho_kernel.version import rho_version

PROBE_TIMEOUT = 2.0
"""Seconds the whole startup request may take."""

PROBE_BODY_LIMIT = 4 * 1024 * 1024
"""A model list larger than this is not read."""

_ID_KEYS = ("id", "key", "model", "name", "slug")


def _entries(payload: Any) -> list[Any]:
    if isinstance(payload, dict):
        for key in ("data", "models"):
            if isinstance(payload.get(key), list):
                return list(payload[key])
        return []
    return list(payload) if isinstance(payload, list) else []


def _entry_id(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry.strip() or None
    if not isinstance(entry, dict):
        return None
    for key in _ID_KEYS:
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _is_loaded(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    status = entry.get("status")
    if isinstance(status, dict):
        status = status.get("value")
    instances = entry.get("loaded_instances")
    return (
        entry.get("state") == "loaded"
        or entry.get("loaded") is True
        or status == "loaded"
        or (isinstance(instances, list) and bool(instances))
    )


def _is_embedding(entry: Any, model_id: str) -> bool:
    kind = entry.get("type") if isinstance(entry, dict) else None
    return kind in ("embedding", "embeddings") or "embed" in model_id.lower()


def loaded_model(payload: Any) -> str | None:
    """The model a decoded model list reports loaded (see the module docstring), or None
    when it lists no model."""
    candidates: list[tuple[bool, bool, str]] = []
    for entry in _entries(payload):
        model_id = _entry_id(entry)
        if model_id is not None:
            candidates.append((_is_loaded(entry), _is_embedding(entry, model_id), model_id))
    if not candidates:
        return None
    chat = [c for c in candidates if not c[1]] or candidates
    return next((c[2] for c in chat if c[0]), chat[0][2])


def _probe_error(provider: ResolvedProvider, detail: str) -> ProviderError:
    return ProviderError(
        f"{provider.shown_models_endpoint} {detail}",
        kind="connect",
        provider=provider.name,
        endpoint=provider.shown_models_endpoint,
    )


def _headers(provider: ResolvedProvider, userinfo: str) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": f"rho/{rho_version()}"}
    key = provider.api_key
    if key:
        headers["Authorization"] = f"Bearer {key}"
    elif userinfo:
        user, _, password = userinfo.partition(":")
        token = f"{unquote(user)}:{unquote(password)}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode("ascii")
    return headers


def fetch_loaded_model(provider: ResolvedProvider, *, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Ask `provider.models_endpoint` which model is loaded; None when it lists none.

    The whole request must finish within `timeout` seconds; no proxy is used and redirects
    are not followed. Any failure (nothing answers, an error status, a body that is not a
    model list) raises `ProviderError` whose message says what happened, URL masked.
    """
    import http.client

    url = provider.models_endpoint
    deadline = time.monotonic() + timeout
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise _probe_error(provider, f"is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not host:
        raise _probe_error(provider, "is not an http(s) URL with a host")
    # An explicit port keeps http.client from reading the end of an IPv6 host as one.
    port = port or (443 if parts.scheme == "https" else 80)
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=timeout)
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    userinfo = parts.netloc.rpartition("@")[0]
    try:
        connection.request("GET", target, headers=_headers(provider, userinfo))
        sock = connection.sock  # kept: the response owns it once the connection lets go
        _bound(sock, deadline)
        response = connection.getresponse()
        body = _read_body(sock, response, deadline)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise _probe_error(provider, f"did not answer: {_reason(exc)}") from None
    finally:
        connection.close()
    if not 200 <= response.status < 300:
        raise _probe_error(provider, f"answered HTTP {response.status}")
    try:
        payload = json.loads(body)
    except ValueError:
        raise _probe_error(provider, "did not answer with JSON") from None
    return loaded_model(payload)


def first_run_choice(provider: ResolvedProvider) -> tuple[str | None, str | None]:
    """No model is named: (the model the local `provider` reports loaded, None), or (None,
    why no model is chosen — the message a prompt then fails with). Blocks for at most
    `PROBE_TIMEOUT` seconds."""
    try:
        loaded = fetch_loaded_model(provider)
    except ProviderError as exc:
        return None, no_model_message(provider, exc.message)
    if loaded is not None:
        return loaded, None
    return None, no_model_message(provider)


def no_model_message(provider: ResolvedProvider, failure: str | None = None) -> str:
    """What rho says when no model is named and the local server reports none loaded: where
    it asked, what it found (`failure`: why the models URL gave no list; None: the list was
    empty), and how to choose a model."""
    from rho_kernel.providers.advice import correct_endpoint

    server = _SERVERS.get(_port(provider), "the model server")
    where = provider.shown_endpoint
    if provider.origin == "default":
        where += ", rho's default endpoint"
    name = 'name one with --model ID (or [agent] model = "ID" in .rho/config.toml)'
    listing = provider.shown_models_endpoint
    if failure is None:
        return (
            f"no model is loaded at {where}: its model list ({listing}) is empty. Load one "
            f"in {server}, or {name}."
        )
    unanswered = f"{listing} did not answer: "
    if failure.startswith(unanswered):
        return (
            f"no model is loaded at {where}: nothing answers there "
            f"({failure.removeprefix(unanswered)}). Start {server} and load a model in it, or "
            f"{name}; or {correct_endpoint(provider)}."
        )
    return (
        f"no model is named, and rho cannot tell which one {where} has loaded ({failure}): {name}."
    )


#: The servers that usually listen on a port, named in the advice.
_SERVERS = {1234: "LM Studio", 11434: "Ollama"}


def _port(provider: ResolvedProvider) -> int:
    try:
        return urlsplit(provider.endpoint).port or 0
    except ValueError:
        return 0


def _bound(sock: Any, deadline: float) -> None:
    """Let the next socket operation wait only for what is left of the deadline."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("timed out")
    if sock is not None:
        sock.settimeout(remaining)


def _read_body(sock: Any, response: Any, deadline: float) -> bytes:
    """Read the body in pieces, each bounded by what is left of the deadline."""
    parts: list[bytes] = []
    size = 0
    while True:
        _bound(sock, deadline)
        chunk = response.read1(65536)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        size += len(chunk)
        if size > PROBE_BODY_LIMIT:
            raise OSError("the model list is too large")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__


__all__ = [
    "PROBE_TIMEOUT",
    "fetch_loaded_model",
    "first_run_choice",
    "loaded_model",
    "no_model_message",
]
