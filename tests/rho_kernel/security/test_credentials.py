"""rho's own credentials: out of every process it starts, and redacted as literals."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RedactionConfig, RhoConfig
from rho_kernel.process.runner import run_process
from rho_kernel.process.shell import command_environment
from rho_kernel.providers.resolve import resolve_provider
from rho_kernel.security import REDACTED, Redactor, SandboxRoot
from rho_kernel.security.credentials import (
    MIN_LITERAL_CHARS,
    credential_variables,
    register_credential,
)
from rho_kernel.tools import ToolContext

PRINT_ENV = [sys.executable, "-c", "import os; print(sorted(os.environ))"]


def test_a_registered_variable_is_removed_whatever_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CORP_CRED_ONE", "value-one-7f3a9b21")
    monkeypatch.setenv("UNRELATED_ONE", "kept")
    assert "CORP_CRED_ONE" in command_environment([])
    register_credential("CORP_CRED_ONE")
    assert "CORP_CRED_ONE" in credential_variables()
    environment = command_environment([])
    assert "CORP_CRED_ONE" not in environment and environment["UNRELATED_ONE"] == "kept"


def test_its_value_is_redacted_in_any_text_for_the_life_of_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CORP_CRED_TWO", "Zq-41-literal-secret")
    register_credential("CORP_CRED_TWO")
    monkeypatch.delenv("CORP_CRED_TWO")  # gone from the environment: still redacted
    text = "a Zq-41-literal-secret b\nurl?k=Zq-41-literal-secretXYZ"
    assert Redactor().redact(text) == f"a {REDACTED} b\nurl?k={REDACTED}XYZ"
    stream = Redactor().stream()
    shown = stream.feed("x Zq-41-lit") + stream.feed("eral-secret y\n") + stream.flush()
    assert shown == f"x {REDACTED} y\n"
    assert Redactor(enabled=False).redact(text) == text


def test_a_short_value_is_not_a_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    short = "q7" * ((MIN_LITERAL_CHARS - 1) // 2)
    monkeypatch.setenv("CORP_PIN", short)
    register_credential("CORP_PIN")
    assert Redactor().redact(f"id {short} ok") == f"id {short} ok"
    assert "CORP_PIN" not in command_environment([])


def test_reading_a_providers_key_registers_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ODD_NAME_FOR_KEY", "provider-key-0123456789")
    provider = resolve_provider(
        RhoConfig(), endpoint="http://127.0.0.1:9/v1", api_key_env="ODD_NAME_FOR_KEY"
    )
    assert provider.api_key == "provider-key-0123456789"
    assert "ODD_NAME_FOR_KEY" not in command_environment([])


async def test_processes_without_an_explicit_environment_do_not_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORP_CRED_THREE", "value-three-99aa77bb")
    monkeypatch.setenv("SOME_API_KEY", "k-1234567890")
    register_credential("CORP_CRED_THREE")
    result = await run_process(PRINT_ENV, root=SandboxRoot(tmp_path))
    assert "CORP_CRED_THREE" not in result.stdout and "SOME_API_KEY" not in result.stdout
    assert "PATH" in result.stdout
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    assert "CORP_CRED_THREE" not in ctx.command_environment()
    result = await ctx.run_process(PRINT_ENV, live=False)
    assert "CORP_CRED_THREE" not in result.stdout
    off = RhoConfig(redaction=RedactionConfig(enabled=False))  # removal does not depend on it
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=off, cancel=CancelToken())
    assert "CORP_CRED_THREE" not in ctx.command_environment()


def test_a_literal_is_not_split_when_a_long_line_is_released(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rho_kernel.security.redaction import STREAM_HOLD

    value = "Lq7" + "x9" * 20
    monkeypatch.setenv("CORP_CRED_LONGLINE", value)
    register_credential("CORP_CRED_LONGLINE")
    for inside in range(1, len(value), 4):  # where, from the value's end, the cut would fall
        stream = Redactor().stream()
        shown = stream.feed("a" * STREAM_HOLD + value + "b" * (1024 - inside))
        shown += stream.flush()
        assert value[:12] not in shown and value[-12:] not in shown
        assert shown.count(REDACTED) == 1
