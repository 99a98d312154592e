"""`sandbox_note`: a hint for a confined command that failed the way the sandbox fails."""

from __future__ import annotations

import pytest

from rho_kernel.confinement import sandbox_note
from rho_kernel.confinement.hints import SANDBOX_SIGNS
from rho_kernel.process import ProcessResult


def result(
    *, exit_code: int | None = 1, stdout: str = "", stderr: str = "", confined_by: str | None
) -> ProcessResult:
    return ProcessResult(
        argv=["sh"],
        exit_code=exit_code,
        signal=None,
        stdout=stdout,
        stderr=stderr,
        stdout_bytes=len(stdout),
        stderr_bytes=len(stderr),
        stdout_elided=0,
        stderr_elided=0,
        duration=0.0,
        confined_by=confined_by,
    )


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_confined_failure_with_a_sign_gets_a_note(stream: str) -> None:
    said = {stream: "touch: cannot touch '/etc/x': Read-only file system\n"}
    note = sandbox_note(result(confined_by="bubblewrap", **said))
    assert note is not None
    assert note.startswith(
        '[sandbox: the command ran confined (bubblewrap); "Read-only file system" above is '
        "likely the sandbox refusing a write outside the project."
    )
    assert "Do not retry the same way" in note and note.endswith("]")


@pytest.mark.parametrize(("sign", "blocked"), SANDBOX_SIGNS)
def test_every_sign_names_what_was_blocked(sign: str, blocked: str) -> None:
    note = sandbox_note(result(confined_by="seatbelt", stderr=f"error: {sign}\n"))
    assert note is not None and f'"{sign}"' in note and f"refusing {blocked}." in note


def test_the_first_sign_in_the_list_is_named() -> None:
    stderr = "curl: (6) Could not resolve host\nmkdir: Read-only file system\n"
    note = sandbox_note(result(confined_by="bubblewrap", stderr=stderr))
    assert note is not None and '"Read-only file system"' in note


def test_no_note_for_an_unconfined_command() -> None:
    assert sandbox_note(result(confined_by=None, stderr="Read-only file system")) is None


def test_no_note_for_a_command_that_succeeded() -> None:
    ok = result(exit_code=0, confined_by="bubblewrap", stderr="Read-only file system")
    assert sandbox_note(ok) is None


def test_no_note_for_a_failure_without_a_sign() -> None:
    failed = result(confined_by="bubblewrap", stdout="1 test failed", stderr="AssertionError")
    assert sandbox_note(failed) is None


def test_a_command_killed_by_a_signal_with_a_sign_gets_a_note() -> None:
    killed = result(exit_code=None, confined_by="bubblewrap", stderr="Operation not permitted")
    assert sandbox_note(killed) is not None


def test_a_created_repository_is_named_with_control_characters_escaped() -> None:
    from rho_kernel.confinement.hints import created_note, with_created_note
    from rho_kernel.tools import ToolResult

    note = created_note(["sub/.git", "a\n[sandbox: nothing]\x1b[2K\u202e/.rho"])
    assert "\n" not in note and "\x1b" not in note and "\u202e" not in note
    assert note.startswith("[sandbox: the command created sub/.git, a\\n[sandbox: nothing]")
    many = created_note([f"d{i}/.git" for i in range(30)])
    assert "d19/.git and 10 more," in many and "d20/.git" not in many
    result = with_created_note(ToolResult("exit_code: 0\n", details={"k": 1}), ["x\ty/.git"])
    assert result.output.splitlines()[-1].startswith("[sandbox: the command created x\\ty/.git")
    assert result.details == {"k": 1, "createdRepositories": ["x\\ty/.git"]}
    untouched = ToolResult("out", details=["kept"])
    assert with_created_note(untouched, ["a/.git"]).details == ["kept"]
    assert with_created_note(untouched, []) is untouched


def test_a_tool_that_offers_escalation_is_named_in_the_note() -> None:
    failed = result(confined_by="bubblewrap", stderr="curl: (6) Could not resolve host\n")
    plain = sandbox_note(failed)
    named = sandbox_note(failed, escalation="run_command")
    assert plain is not None and "[sandbox] writable or network in their config" in plain
    assert named is not None and 'call run_command again with sandbox: "network"' in named
    assert "justification" in named and "sandbox:" not in plain.split("]", 1)[1]
