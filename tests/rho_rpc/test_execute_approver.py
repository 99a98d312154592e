"""`rho exec --approve-with`: what an approval command may answer, how the command is found,
and `--fail-on-denial`'s exit status (the process itself: tests/e2e/test_exec_approvals.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rho_kernel.frontend import ToolCallRecord
from rho_kernel.loop.result import AgentResult, RunUsage
from rho_rpc.execute.approver import MAX_TIMEOUT, Answer, ApproverError, approver, read_answer
from rho_rpc.execute.command import _status
from rho_rpc.execute.options import REFUSED


@pytest.mark.parametrize(
    ("stdout", "answer"),
    [
        ("allow\n", Answer(True)),
        ("  DENY  \n", Answer(False)),
        ('{"approved": true}', Answer(True)),
        ('{"approved": false, "message": "  not now \\n"}', Answer(False, "not now")),
        ('{"approved": false, "message": ""}', Answer(False)),
        ('\n{"approved": true, "message": "ignored with an approval"}\n', Answer(True, "ignored with an approval")),
    ],
)  # fmt: skip
def test_the_answers_an_approval_command_may_give(stdout: str, answer: Answer) -> None:
    assert read_answer(stdout) == answer


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "yes",
        "allow deny",
        "allow\nallow",
        '{"approved": "true"}',
        '{"approved": 1}',
        '{"message": "no verdict"}',
        '{"approved": true, "updatedInput": {}}',
        '{"approved": false, "message": 5}',
        "[true]",
        '{"approved": true} trailing',
        "\x1b]52;c;cHduZWQ=\x07allow",
    ],
)
def test_anything_else_is_refused_in_words_that_show_as_text(stdout: str) -> None:
    with pytest.raises(ApproverError) as raised:
        read_answer(stdout)
    said = str(raised.value)
    assert said.startswith("answered") and "\x1b" not in said and "\x07" not in said


def test_a_long_message_is_cut() -> None:
    answer = read_answer('{"approved": false, "message": "' + "x" * 10_000 + '"}')
    assert answer.message is not None and len(answer.message) == 2000


def test_the_command_is_split_like_a_shell_would_and_its_program_found_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "my approver.py"
    script.write_text("#!/bin/sh\necho allow\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    found = approver("'./my approver.py' --strict 'two words'", 5)
    assert found.argv == (str(script), "--strict", "two words") and found.timeout == 5
    assert approver("python3 -c pass").argv[0] == __import__("shutil").which("python3")
    not_executable = tmp_path / "plain.txt"
    not_executable.write_text("x")
    for command, said in (
        ("", "the command is empty"),
        ("'open", "cannot split"),
        ("./plain.txt", "no such executable file"),
        (str(tmp_path), "no such executable file"),
        ("surely-no-such-approver", "no such executable file on PATH"),
    ):
        with pytest.raises(ApproverError, match=said):
            approver(command)
    for timeout in (0, -1, float("nan"), float("inf"), MAX_TIMEOUT + 1):
        with pytest.raises(ApproverError, match="--approve-timeout"):
            approver(sys.executable, timeout)


def _result(*outcomes: str, finish: str = "stop") -> AgentResult:
    calls = [ToolCallRecord(f"tool_{i}", "{}", outcome) for i, outcome in enumerate(outcomes)]  # type: ignore[arg-type]
    return AgentResult("reply", 1, RunUsage(), calls, 10, finish)  # type: ignore[arg-type]


def test_fail_on_denial_turns_a_denied_or_blocked_call_into_status_5(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _status(_result("success", "denied"), None, None) == 0  # not asked for
    assert _status(_result("success", "error"), None, None, True) == 0  # a failure is no denial
    assert _status(_result("denied", "blocked", "denied"), None, None, True) == REFUSED
    said = capsys.readouterr().err
    assert "3 calls denied or blocked (tool_0, tool_1, tool_2)" in said
    assert _status(_result("denied", finish="max_iterations"), None, None, True) == REFUSED
    assert _status(_result("denied"), None, 143, True) == 143  # a signal's status stands
