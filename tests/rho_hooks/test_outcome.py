"""What a hook's run means: Claude Code's exit codes and JSON, failures that block."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rho_hooks.config import HookCommand
from rho_hooks.outcome import MAX_REASON, HookOutcome, combine, interpret, shown
from rho_hooks.runner import MAX_OUTPUT, HookRun

HOOK = HookCommand(command="./check.sh")
LENIENT = HookCommand(command="./check.sh", on_failure="allow")


def run(exit_code: int | None = 0, stdout: str = "", stderr: str = "", **other: Any) -> HookRun:
    return HookRun(exit_code, stdout, stderr, other.pop("timed_out", False), 10, **other)


def answer(event: str, output: dict[str, Any], hook: HookCommand = HOOK) -> HookOutcome:
    return interpret(event, hook, run(0, json.dumps(output)))


def test_exit_0_without_output_goes_on() -> None:
    assert interpret("PreToolUse", HOOK, run(0, "  \n")) == HookOutcome()


def test_exit_2_blocks_with_stderr_for_the_model() -> None:
    outcome = interpret("PreToolUse", HOOK, run(2, "ignored", "  no rm -rf here\n"))
    assert (outcome.verdict, outcome.reason, outcome.outcome) == (
        "block",
        "no rm -rf here",
        "blocked",
    )
    assert outcome.failure is None


def test_exit_2_without_stderr_names_the_hook() -> None:
    assert interpret("Stop", HOOK, run(2)).reason == "blocked by hook `./check.sh`"


def test_a_long_reason_is_bounded() -> None:
    reason = interpret("PreToolUse", HOOK, run(2, stderr="x" * 10_000)).reason
    assert len(reason) == MAX_REASON and reason.endswith("…")


@pytest.mark.parametrize(
    ("hook_run", "why"),
    [
        (
            run(1, stderr="Traceback …\nKeyError: 'x'\n"),
            "exited with 1: Traceback …\nKeyError: 'x'",
        ),
        (run(127), "exited with 127"),
        (run(None, timed_out=True), "timed out after 60 s"),
        (run(None, signal=9), "was killed by signal 9"),
        (run(None, cancelled=True), "was cancelled"),
        (run(None, error="cannot start '/bin/sh': no such file"), "could not start: cannot"),
        (run(0, "{not json"), "printed invalid JSON: Expecting property name"),
        (
            run(0, '{"decision": "approve", "pad": "xx\n[… elided …]\nxx"}', stdout_bytes=10**7),
            "printed too much to read as its JSON answer: 10000000 bytes on stdout, more than "
            f"the limit of {MAX_OUTPUT} bytes (64 KiB)",
        ),
    ],
)
def test_a_failing_hook_blocks_naming_itself_and_why(hook_run: HookRun, why: str) -> None:
    outcome = interpret("PreToolUse", HOOK, hook_run)
    assert outcome.verdict == "block" and outcome.outcome == "failed"
    assert outcome.failure is not None and outcome.failure.startswith(f"hook `./check.sh` {why}")
    assert outcome.reason == outcome.failure


def test_output_just_at_the_limit_is_read_and_plain_text_past_it_is_context() -> None:
    empty = len(json.dumps({"decision": "block", "reason": ""}))
    exact = json.dumps({"decision": "block", "reason": "x" * (MAX_OUTPUT - empty)})
    assert len(exact) == MAX_OUTPUT
    read = interpret("Stop", HOOK, run(0, exact, stdout_bytes=MAX_OUTPUT))
    assert read.verdict == "block" and read.failure is None
    text = interpret(
        "UserPromptSubmit", HOOK, run(0, "head\n[… elided …]\ntail", stdout_bytes=10**7)
    )
    assert text.additional_context == "head\n[… elided …]\ntail" and text.failure is None


def test_a_hook_that_allows_its_failure_lets_the_event_go_on() -> None:
    outcome = interpret("PreToolUse", LENIENT, run(1, stderr="boom"))
    assert (outcome.verdict, outcome.outcome) == ("continue", "allowed-failure")
    assert outcome.failure == "hook `./check.sh` exited with 1: boom"
    assert interpret("PreToolUse", LENIENT, run(2, stderr="no")).verdict == "block"


def test_only_the_tail_of_a_failing_hooks_stderr_is_quoted() -> None:
    failure = interpret("Stop", HOOK, run(1, stderr="a" * 5000 + "END")).failure
    assert failure is not None and failure.endswith("END") and len(failure) < 1100


def test_a_long_command_is_cut_in_messages() -> None:
    assert shown("python3 -c '\n" + "x" * 200 + "'").endswith("…`")
    assert shown("a\n  b") == "`a b`"


@pytest.mark.parametrize(
    ("output", "words"),
    [
        ("[1, 2]", None),  # not starting with `{`: plain text, ignored for PreToolUse
        ('{"decision": "block"', "Expecting"),
        ('{"continue": "no"}', "continue is not true or false"),
        ('{"hookSpecificOutput": []}', "hookSpecificOutput is not an object"),
        ('{"hookSpecificOutput": {"permissionDecision": "yes"}}', "'yes' is not allow"),
        ('{"hookSpecificOutput": {"updatedInput": "x"}}', "updatedInput is not an object"),
        ('{"hookSpecificOutput": {"hookEventName": "Stop"}}', "'Stop', not 'PreToolUse'"),
        ('{"systemMessage": 3}', "systemMessage is not a string"),
        ('{"decision": "maybe"}', "'maybe' is not approve or block"),
        ('{"a": 1} trailing', "Extra data"),
    ],
)
def test_json_of_the_wrong_shape_is_a_failure(output: str, words: str | None) -> None:
    outcome = interpret("PreToolUse", HOOK, run(0, output))
    if words is None:
        assert outcome == HookOutcome()
        return
    assert outcome.verdict == "block" and outcome.failure is not None
    assert "printed invalid JSON" in outcome.failure and words in outcome.failure


@pytest.mark.parametrize(
    ("decision", "verdict"), [("allow", "allow"), ("deny", "deny"), ("ask", "ask")]
)
def test_a_permission_decision_with_its_reason(decision: str, verdict: str) -> None:
    specific = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": "policy",
    }
    outcome = answer("PreToolUse", {"hookSpecificOutput": specific})
    assert (outcome.verdict, outcome.reason) == (verdict, "policy")
    assert outcome.outcome == ("blocked" if decision == "deny" else "ok")


def test_a_denial_without_a_reason_names_the_hook() -> None:
    outcome = answer("PreToolUse", {"hookSpecificOutput": {"permissionDecision": "deny"}})
    assert outcome.reason == "denied by hook `./check.sh`"


@pytest.mark.parametrize(("decision", "verdict"), [("approve", "allow"), ("block", "deny")])
def test_the_legacy_decision_of_a_pre_tool_use_hook(decision: str, verdict: str) -> None:
    outcome = answer("PreToolUse", {"decision": decision, "reason": "legacy"})
    assert (outcome.verdict, outcome.reason) == (verdict, "legacy")


def test_permission_decision_wins_over_the_legacy_decision() -> None:
    output = {"decision": "block", "hookSpecificOutput": {"permissionDecision": "allow"}}
    assert answer("PreToolUse", output).verdict == "allow"


def test_an_updated_input_is_taken_from_a_pre_tool_use_hook_only() -> None:
    specific = {"permissionDecision": "allow", "updatedInput": {"command": "ls -la"}}
    assert answer("PreToolUse", {"hookSpecificOutput": specific}).updated_input == {
        "command": "ls -la"
    }
    assert answer("PostToolUse", {"hookSpecificOutput": specific}).updated_input is None
    ignored = {"hookSpecificOutput": {"updatedInput": "x", "permissionDecision": "no"}}
    assert answer("PostToolUse", ignored) == HookOutcome()  # fields it does not use


@pytest.mark.parametrize("event", ["PostToolUse", "UserPromptSubmit", "Stop"])
def test_decision_block_blocks_with_its_reason(event: str) -> None:
    outcome = answer(event, {"decision": "block", "reason": "tests fail"})
    assert (outcome.verdict, outcome.reason, outcome.outcome) == ("block", "tests fail", "blocked")
    assert answer(event, {"decision": "block"}).reason == "blocked by hook `./check.sh`"
    assert answer(event, {"decision": "approve"}).verdict == "continue"


def test_continue_false_stops_with_its_reason() -> None:
    outcome = answer("PostToolUse", {"continue": False, "stopReason": "enough"})
    assert (outcome.stop, outcome.stop_reason, outcome.verdict) == (True, "enough", "continue")
    outcome = answer("PostToolUse", {"continue": True, "stopReason": "unused"})
    assert (outcome.stop, outcome.stop_reason) == (False, None)


def test_common_fields_are_read() -> None:
    outcome = answer(
        "SessionStart",
        {
            "systemMessage": "hooks loaded",
            "suppressOutput": True,
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "branch: main",
            },
        },
    )
    assert outcome.system_message == "hooks loaded" and outcome.suppress_output
    assert outcome.additional_context == "branch: main"
    assert answer("PostToolUse", {"additionalContext": "top"}).additional_context == "top"


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart"])
def test_plain_text_adds_context_where_claude_code_adds_it(event: str) -> None:
    assert interpret(event, HOOK, run(0, "today is Monday\n")).additional_context == (
        "today is Monday"
    )


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "Stop", "Notification"])
def test_plain_text_is_ignored_elsewhere(event: str) -> None:
    assert interpret(event, HOOK, run(0, "checked 3 files\n")) == HookOutcome()


def test_no_outcomes_combine_to_continue() -> None:
    assert combine([]) == HookOutcome()


def test_the_most_severe_verdict_wins_with_the_reasons_at_its_severity() -> None:
    outcomes = [
        HookOutcome(verdict="allow", reason="fine"),
        HookOutcome(verdict="deny", reason="no secrets", outcome="blocked"),
        HookOutcome(verdict="ask", reason="unsure"),
        HookOutcome(verdict="block", reason="tests fail", outcome="blocked"),
    ]
    combined = combine(outcomes)
    assert (combined.verdict, combined.reason) == ("block", "no secrets; tests fail")
    assert combine(outcomes[:3]).verdict == "deny"
    assert (combine([outcomes[0], outcomes[2]]).verdict, combine(outcomes[:1]).reason) == (
        "ask",
        "fine",
    )


def test_combined_fields() -> None:
    combined = combine(
        [
            HookOutcome(additional_context="a", system_message="m1"),
            HookOutcome(updated_input={"command": "first"}, stop=True, stop_reason="s1"),
            HookOutcome(
                updated_input={"command": "second"},
                additional_context="b",
                suppress_output=True,
                failure="hook `x` exited with 1",
                outcome="allowed-failure",
            ),
            HookOutcome(verdict="block", reason="r", outcome="blocked", stop_reason=None),
        ]
    )
    assert combined.updated_input == {"command": "first"}
    assert (combined.additional_context, combined.system_message) == ("a\nb", "m1")
    assert (combined.stop, combined.stop_reason, combined.suppress_output) == (True, "s1", True)
    assert combined.failure == "hook `x` exited with 1"
    assert combined.outcome == "blocked"
    failed = HookOutcome(verdict="block", reason="f", failure="f", outcome="failed")
    assert combine([combined, failed]).outcome == "failed"
