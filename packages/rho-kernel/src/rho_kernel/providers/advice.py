"""What to do after a failed model request, fitting how the provider was chosen.

A `ProviderError` carries a general hint ("is the model server running?"). Whoever knows how
the provider was chosen — `--endpoint`, a `[[providers]]` entry, or rho's default endpoint —
and which model was asked for can say more: `failure_hint` names the flag or the config entry
to correct, and never suggests `--endpoint` to someone who passed it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.resolve import ResolvedProvider, is_local_endpoint


def _host_port(endpoint: str) -> str:
    """`host:port` of an endpoint URL (the port its scheme implies when none is written)."""
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or endpoint
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return endpoint
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}"


def _where(provider: ResolvedProvider | None) -> str:
    """Where the endpoint was given, as advice on what to correct."""
    if provider is None:
        return "correct the endpoint"
    if provider.origin == "flag":
        return "check the URL given to --endpoint"
    if provider.origin == "default":
        return (
            "pass --endpoint URL (and --model ID) for another server, or configure "
            "[[providers]] in ~/.rho/config.toml"
        )
    return f"correct the endpoint of provider '{provider.name}' ([[providers]] in config.toml)"


def correct_endpoint(provider: ResolvedProvider | None) -> str:
    """What to correct when the endpoint is wrong, fitting how it was given (`--endpoint`,
    a `[[providers]]` entry, rho's default endpoint), as the end of a sentence."""
    return _where(provider)


def _refused(endpoint: str, provider: ResolvedProvider | None) -> str:
    address = _host_port(endpoint)
    if provider is not None and provider.origin == "default":
        return (
            f"Nothing is listening at {address}, rho's default endpoint: start a model server "
            f"there (it is LM Studio's default address), or {_where(provider)}."
        )
    if is_local_endpoint(endpoint):
        return (
            f"Nothing is listening at {address}: start the model server there (is it on "
            f"another port?), or {_where(provider)}."
        )
    return f"{address} refused the connection: check that the server is up, or {_where(provider)}."


def _connect(error: ProviderError, endpoint: str, provider: ResolvedProvider | None) -> str:
    if error.reason == "refused":
        return _refused(endpoint, provider)
    host = _host_port(endpoint).rsplit(":", 1)[0]
    if error.reason == "dns":
        return f"The host name {host} does not exist: {_where(provider)}."
    if error.reason == "dns_temporary":
        return f"The host name {host} could not be looked up: check your network connection."
    if error.reason == "tls":
        return (
            "The TLS connection failed: check the scheme (http:// or https://) and the "
            f"server's certificate, or {_where(provider)}."
        )
    if error.reason in ("timeout", "unreachable"):
        return f"{host} could not be reached: check your network connection, or {_where(provider)}."
    if error.reason == "invalid_url":
        return (
            f"Use a full URL such as http://localhost:1234/v1/chat/completions: {_where(provider)}."
        )
    return error.hint


def _api_key(provider: ResolvedProvider | None) -> str:
    if provider is None:
        return "Check the API key (api_key_env) for this provider."
    variable = provider.api_key_env
    if not variable:
        place = "--api-key-env VAR" if provider.origin == "flag" else "api_key_env"
        return (
            f"No API key was sent to provider '{provider.name}': set {place} to the "
            "environment variable that holds the key."
        )
    if provider.api_key is None:
        return f"The environment variable {variable} that should hold the API key is not set."
    return f"Check the API key in the environment variable {variable}."


def _http(
    error: ProviderError, attempts: int, model: str, provider: ResolvedProvider | None
) -> str:
    status = error.status or 0
    if status in (401, 403):
        return _api_key(provider)
    if status == 404:
        named = f" '{model}'" if model else ""
        return (
            f"Check the model name{named} (listModels shows what the provider serves) and "
            f"the endpoint URL; {_where(provider)}."
        )
    if status == 429 and attempts > 1:
        return "The provider kept rate limiting the requests: wait, then send the prompt again."
    if error.retryable and attempts > 1:
        return (
            "The provider kept failing: send the prompt again later, or raise [agent] retry_budget."
        )
    return error.hint


def failure_hint(
    error: ProviderError,
    provider: ResolvedProvider | None,
    *,
    model: str = "",
    attempts: int = 1,
) -> str:
    """What to do after `error` (the last of `attempts` requests), for people.

    `provider` is the provider the request went to (None when unknown: the error's own hint
    is used where nothing better can be said)."""
    endpoint = error.endpoint or (provider.shown_endpoint if provider is not None else "")
    if error.kind == "connect":
        hint = _connect(error, endpoint, provider)
    elif error.kind == "http":
        hint = _http(error, attempts, model, provider)
    elif error.retryable and attempts > 1:
        hint = "The model kept failing to answer: send the prompt again later."
    else:
        hint = error.hint
    return hint or error.hint


__all__ = ["correct_endpoint", "failure_hint"]
