"""Every provider failure ends a prompt the same way, after the retries that can help."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path

import httpx
import pytest

from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.result import AgentError, ProviderFailure
from rho_kernel.loop.retrying import QUICK_RETRY_SECS, retry_delay, retry_limit
from rho_kernel.providers.advice import failure_hint
from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.http import connect_error
from rho_kernel.providers.resolve import ResolvedProvider, resolve_provider
from rho_kernel.testing import ErrorReply, RecordingObserver, ScriptedServer, run_prompt


def _closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with ScriptedServer() as scripted:
        yield scripted


def _config(**agent: object) -> RhoConfig:
    return RhoConfig.model_validate({"agent": {"initial_backoff_ms": 1, **agent}})


def _failure(observer: RecordingObserver) -> ProviderFailure:
    (keywords,) = [
        keywords
        for (name, _), keywords in zip(observer.events, observer.keywords, strict=True)
        if name == "on_agent_error"
    ]
    failure = keywords["failure"]
    assert isinstance(failure, ProviderFailure)
    return failure


def _refused(endpoint: str) -> ProviderError:
    return connect_error(
        httpx.ConnectError("[Errno 111] Connection refused"), endpoint=endpoint, provider="p"
    )


# ── in the loop ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize("budget", [1, 4, 9])
async def test_a_refused_local_endpoint_gets_one_quick_retry(tmp_path: Path, budget: int) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}/v1/chat/completions"
    observer = RecordingObserver()
    with pytest.raises(AgentError) as info:
        await run_prompt(
            "s",
            endpoint=endpoint,
            root=tmp_path,
            config=_config(retry_budget=budget, initial_backoff_ms=60_000),
            observers=[observer],
        )
    retries = [args for name, args in observer.events if name == "on_retry"]
    assert len(retries) == 1
    attempt, limit, delay, _ = retries[0]
    assert (attempt, limit) == (1, 1) and delay <= QUICK_RETRY_SECS
    failure = _failure(observer)
    assert info.value.failure == failure
    assert (failure.kind, failure.reason, failure.attempts) == ("connect", "refused", 2)
    assert failure.endpoint == endpoint and failure.status is None


async def test_a_refused_local_endpoint_with_no_retry_budget_is_tried_once(
    tmp_path: Path,
) -> None:
    endpoint = f"http://localhost:{_closed_port()}/v1/chat/completions"
    observer = RecordingObserver()
    with pytest.raises(AgentError):
        await run_prompt(
            "s", endpoint=endpoint, root=tmp_path, config=_config(retry_budget=0),
            observers=[observer],
        )  # fmt: skip
    assert "on_retry" not in observer.names()
    assert _failure(observer).attempts == 1


async def test_overloads_keep_the_whole_retry_budget(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(*[ErrorReply(503, {"error": {"message": "busy"}}) for _ in range(4)])
    observer = RecordingObserver()
    with pytest.raises(AgentError) as info:
        await run_prompt(
            "s", endpoint=server.chat_url, root=tmp_path, config=_config(retry_budget=3),
            observers=[observer],
        )  # fmt: skip
    assert len(server.requests) == 4
    assert [args[:2] for name, args in observer.events if name == "on_retry"] == [
        (1, 3), (2, 3), (3, 3)
    ]  # fmt: skip
    failure = _failure(observer)
    assert (failure.kind, failure.status, failure.attempts, failure.retryable) == (
        "http", 503, 4, True
    )  # fmt: skip
    assert "busy" in info.value.message and "tried 4 times" in info.value.message
    assert "retry_budget" in failure.hint


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        (ErrorReply(401, {"error": {"message": "bad key"}}), 401),
        (ErrorReply(403, {"error": {"message": "forbidden"}}), 403),
        (ErrorReply(404, {"error": {"message": "no such model"}}), 404),
    ],
    ids=["401", "403", "404"],
)
async def test_refusals_are_the_same_shape_without_retries(
    server: ScriptedServer, tmp_path: Path, reply: ErrorReply, status: int
) -> None:
    server.add(reply)
    observer = RecordingObserver()
    with pytest.raises(AgentError):
        await run_prompt(
            "s", endpoint=server.chat_url, root=tmp_path, config=_config(retry_budget=3),
            observers=[observer], model="some-model",
        )  # fmt: skip
    assert len(server.requests) == 1
    failure = _failure(observer)
    assert (failure.kind, failure.status, failure.attempts, failure.retryable) == (
        "http", status, 1, False
    )  # fmt: skip
    if status == 404:
        assert "'some-model'" in failure.hint
    else:
        assert "--api-key-env" in failure.hint  # run_prompt gives the endpoint as --endpoint


# ── which errors retry, and how long they wait ──────────────────────────────


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:9/v1/chat/completions",
        "http://127.8.9.10:9/v1",
        "http://localhost:9/v1",
        "http://[::1]:9/v1",
        "http://model.localhost:9/v1",
    ],
)
def test_local_refusals_allow_one_quick_retry(endpoint: str) -> None:
    error = _refused(endpoint)
    assert retry_limit(error, 4) == 1 and retry_limit(error, 0) == 0
    assert retry_delay(error, 1, 500) == QUICK_RETRY_SECS


def test_remote_refusals_and_overloads_back_off() -> None:
    remote = _refused("http://10.1.2.3:8000/v1/chat/completions")
    assert retry_limit(remote, 4) == 4 and retry_delay(remote, 3, 500) == 2.0
    overloaded = ProviderError(
        "busy", kind="http", status=503, retryable=True, endpoint="http://127.0.0.1:1/v1"
    )
    assert retry_limit(overloaded, 4) == 4 and retry_delay(overloaded, 2, 500) == 1.0
    slow_down = ProviderError("slow", kind="http", status=429, retryable=True, retry_after=7.0)
    assert retry_delay(slow_down, 1, 500) == 7.0


def test_a_host_name_that_does_not_exist_is_not_retried() -> None:
    cause = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    error = connect_error(_raised(cause), endpoint="http://no-such.example/v1", provider="")
    assert (error.reason, error.retryable, retry_limit(error, 4)) == ("dns", False, 0)
    temporary = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    error = connect_error(_raised(temporary), endpoint="http://api.example/v1", provider="")
    assert (error.reason, error.retryable) == ("dns_temporary", True)


def test_a_tls_failure_is_not_retried() -> None:
    cause = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate")
    error = connect_error(_raised(cause), endpoint="https://api.example/v1", provider="")
    assert (error.reason, error.retryable, retry_limit(error, 4)) == ("tls", False, 0)


def _raised(cause: BaseException) -> httpx.ConnectError:
    """An httpx.ConnectError caused by `cause`, as httpx raises it."""
    try:
        try:
            raise cause
        except BaseException as inner:
            raise httpx.ConnectError(str(inner)) from inner
    except httpx.ConnectError as outer:
        return outer


# ── hints that fit what was given ───────────────────────────────────────────


def _provider(
    origin: str, endpoint: str = "http://127.0.0.1:5555/v1/chat/completions"
) -> ResolvedProvider:
    config = RhoConfig.model_validate(
        {"providers": [{"name": "mine", "endpoint": endpoint}]} if origin == "config" else {}
    )
    return resolve_provider(config, endpoint=endpoint if origin == "flag" else None)


def test_refused_hint_for_an_endpoint_given_on_the_command_line() -> None:
    provider = _provider("flag")
    assert provider.origin == "flag"
    hint = failure_hint(_refused(provider.endpoint), provider, attempts=2)
    assert "127.0.0.1:5555" in hint and "--endpoint" in hint
    assert "pass --endpoint" not in hint and "[[providers]]" not in hint


def test_refused_hint_for_a_configured_provider() -> None:
    provider = _provider("config")
    assert provider.origin == "config"
    hint = failure_hint(_refused(provider.endpoint), provider, attempts=2)
    assert "127.0.0.1:5555" in hint and "provider 'mine'" in hint
    assert "--endpoint" not in hint


def test_refused_hint_for_the_default_endpoint() -> None:
    provider = _provider("default")
    assert provider.origin == "default"
    hint = failure_hint(_refused(provider.endpoint), provider, attempts=2)
    assert "localhost:1234" in hint and "pass --endpoint" in hint and "[[providers]]" in hint


def test_api_key_hints_name_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    error = ProviderError("HTTP 401", kind="http", status=401)
    monkeypatch.delenv("RHO_TEST_MISSING_KEY", raising=False)
    config = RhoConfig.model_validate(
        {"providers": [{"name": "cloud", "endpoint": "https://api.example/v1",
                        "api_key_env": "RHO_TEST_MISSING_KEY"}]}
    )  # fmt: skip
    unset = failure_hint(error, resolve_provider(config))
    assert "RHO_TEST_MISSING_KEY" in unset and "not set" in unset
    monkeypatch.setenv("RHO_TEST_MISSING_KEY", "value")
    assert "Check the API key in" in failure_hint(error, resolve_provider(config))
    keyless = RhoConfig.model_validate(
        {"providers": [{"name": "cloud", "endpoint": "https://api.example/v1"}]}
    )
    hint = failure_hint(error, resolve_provider(keyless))
    assert "No API key was sent to provider 'cloud'" in hint and "api_key_env" in hint
