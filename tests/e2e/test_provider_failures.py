"""One shape for "the model could not be reached", through the real `rho` process.

Whatever went wrong — nothing listening, an error status after every retry, a refusal, a
stream rho cannot read — the prompt answers `{error, failure}` and `agent/error` carries the
same `failure`; no `agent/end` follows.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from rho_process import RhoProcess  # type: ignore[import-not-found]

from rho_kernel.testing import ErrorReply, ScriptedServer, SSEReply

FAILURE_KEYS = {"kind", "reason", "provider", "endpoint", "status", "attempts", "retryable", "hint"}


def _closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _user_config(project: Path, text: str) -> None:
    user_dir = project.parent / "home" / ".rho"
    user_dir.mkdir(parents=True, exist_ok=True)
    (user_dir / "config.toml").write_text(text)


def _failed(rho: RhoProcess) -> tuple[dict[str, Any], dict[str, Any]]:
    """Send a prompt that fails; its failure object, checked to be the same everywhere, and
    the response's result."""
    result = rho.call("prompt", {"message": "hi"})["result"]
    assert set(result) == {"error", "failure", "turnId"}, result
    assert result["turnId"].startswith("turn_")
    (notified,) = [m["params"] for m in rho.seen if m.get("method") == "agent/error"]
    assert notified == result
    assert "agent/end" not in rho.methods_seen()
    failure = result["failure"]
    assert set(failure) <= FAILURE_KEYS and failure["hint"] in result["error"]
    return failure, result


#: HOME's config of the module's shared rho: a retry budget of 2, each retry 1 ms later.
FAST_RETRIES = "[agent]\nretry_budget = 2\ninitial_backoff_ms = 1\n"


def _shared(shared_rho) -> tuple[RhoProcess, ScriptedServer]:  # type: ignore[no-untyped-def]
    """The module's `--ephemeral` rho retrying fast, fresh for this test (its exit status is
    checked when the module is done)."""
    shared = shared_rho("--ephemeral", user_config=FAST_RETRIES)
    return shared.rho, shared.server


def _retries(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "agent/retry"]


def test_nothing_listening_at_the_given_endpoint_fails_after_one_quick_retry(
    start_rho, project: Path
) -> None:  # type: ignore[no-untyped-def]
    # The default retry budget (4) and back-off (500 ms, doubling): a refusal does not use them.
    port = _closed_port()
    endpoint = f"http://127.0.0.1:{port}/v1/chat/completions"
    rho = start_rho("--ephemeral", "--endpoint", endpoint, "-m", "m")
    assert rho.read()["method"] == "ready"
    failure, result = _failed(rho)
    assert failure["kind"] == "connect" and failure["reason"] == "refused"
    assert failure["attempts"] == 2 and failure["retryable"] is True
    assert failure["endpoint"] == endpoint and "status" not in failure
    ((retry),) = _retries(rho)
    assert (retry["attempt"], retry["maxAttempts"]) == (1, 1) and retry["delayMs"] <= 200
    # --endpoint was given: the hint names what was refused and never says "pass --endpoint".
    assert f"127.0.0.1:{port}" in failure["hint"] and "--endpoint" in failure["hint"]
    assert "pass --endpoint" not in result["error"] and "[[providers]]" not in result["error"]
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()


def test_nothing_listening_at_a_configured_provider_names_the_entry(
    start_rho, project: Path
) -> None:  # type: ignore[no-untyped-def]
    endpoint = f"http://localhost:{_closed_port()}/v1/chat/completions"
    _user_config(
        project,
        f'[[providers]]\nname = "workbench"\nendpoint = "{endpoint}"\n'
        '[agent]\nmodel = "m"\nretry_budget = 3\n',
    )
    rho = start_rho("--ephemeral")
    assert rho.read()["method"] == "ready"
    failure, result = _failed(rho)
    assert (failure["reason"], failure["attempts"], failure["provider"]) == (
        "refused", 2, "workbench"
    )  # fmt: skip
    assert "provider 'workbench'" in failure["hint"] and "--endpoint" not in result["error"]


def test_an_overloaded_provider_has_the_same_shape(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server = _shared(shared_rho)
    server.add(*[ErrorReply(503, {"error": {"message": "overloaded"}}) for _ in range(3)])
    failure, result = _failed(rho)
    assert (failure["kind"], failure["status"], failure["attempts"]) == ("http", 503, 3)
    assert failure["retryable"] is True and "reason" not in failure
    assert [r["attempt"] for r in _retries(rho)] == [1, 2]
    assert "overloaded" in result["error"] and len(server.requests) == 3


# (what the server answers, the failure's kind and status)
REFUSALS = [
    (ErrorReply(401, {"error": {"message": "bad key"}}), "http", 401),
    (ErrorReply(404, {"error": {"message": "model not found"}}), "http", 404),
    (SSEReply(['{"choices": [{"delta": {"content": "x"']), "decode", None),
]


def test_refusals_and_unreadable_streams_have_the_same_shape(shared_rho) -> None:  # type: ignore[no-untyped-def]
    # One rho meets every failure in turn, a prompt each (a rho per failure cost ~0.7 s of
    # CPU each); what it was sent is forgotten between them, so each is checked on its own.
    # A refusal is never retried, whatever the retry budget.
    rho, server = _shared(shared_rho)
    for reply, kind, status in REFUSALS:
        rho.seen.clear()
        server.add(reply)
        failure, _ = _failed(rho)
        assert (failure["kind"], failure.get("status"), failure["attempts"]) == (kind, status, 1)
        assert failure["retryable"] is False and _retries(rho) == []
        if status == 401:
            assert "--api-key-env" in failure["hint"]
        if status == 404:
            assert "'scripted-model'" in failure["hint"]
