"""`rho exec` on a terminal: the turn drawn for a person watching, and the approval question."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from rho_kernel import (
    AgentResult,
    ApprovalRequest,
    ContextCompacted,
    Risk,
    SuggestedRule,
    ToolResult,
)
from rho_kernel.approvals.escalation import Escalation
from rho_kernel.frontend import RunUsage
from rho_kernel.providers import Usage
from rho_kernel.security import SandboxRoot
from rho_rpc.execute.screen import NO_ANSWER, TerminalScreen, ask, make_console

#: What a live display writes to redraw itself: hide/show the cursor, erase a line, go up.
LIVE_CONTROLS = re.compile(r"\x1b\[(?:\?25[lh]|2K|1A)")
#: A styling (SGR) escape sequence.
STYLING = re.compile(r"\x1b\[[0-9;]*m")

DIFF = """\
--- a/notes.txt
+++ b/notes.txt
@@ -1 +1 @@
-old line
+new line"""


@pytest.fixture
def out() -> io.StringIO:
    return io.StringIO()


@pytest.fixture
def console(out: io.StringIO) -> Console:
    return make_console(out, color=False, width=100)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    return tmp_path / "project"


@pytest.fixture
def screen(console: Console, project: Path, tmp_path: Path) -> TerminalScreen:
    root = SandboxRoot(project, state_dir=tmp_path / "state")
    return TerminalScreen(console, root, {"write_file", "edit_file"})


def shown(out: io.StringIO) -> str:
    """What was written, without the live display's cursor controls."""
    return LIVE_CONTROLS.sub("", out.getvalue())


def final(out: io.StringIO, since: int) -> str:
    """What stays on screen of the output written after `since`, once the live display has
    gone: the part after its last redraw."""
    return LIVE_CONTROLS.split(out.getvalue()[since:])[-1]


def written(out: io.StringIO, since: int) -> str:
    """What was written after `since`, without the live display's cursor controls."""
    return LIVE_CONTROLS.sub("", out.getvalue()[since:])


def live_text(screen: TerminalScreen) -> str:
    """The live region as it is drawn now."""
    lines = screen.console.render_lines(screen.renderable(), pad=False)
    return "\n".join("".join(segment.text for segment in line) for line in lines)


def agent_result(reply: str = "", iterations: int = 1) -> AgentResult:
    usage = RunUsage(
        tokens=Usage(input_tokens=1200, output_tokens=80), total_cost=0.0012, request_count=2
    )
    return AgentResult(
        reply=reply,
        iterations=iterations,
        usage=usage,
        tool_calls=[],
        duration_ms=3200,
        finish_reason="stop",
    )


# ── the turn ─────────────────────────────────────────────────────────────────


async def test_streamed_reply_is_shown_live_then_ends_as_markdown(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    reply = "# Title\n\nSome **bold** words."
    for piece in ("# Ti", "tle\n\nSome **bo", "ld** words."):
        await screen.on_text_delta(piece)
    assert "# Title" in live_text(screen)
    assert "**bold**" in live_text(screen)
    mark = len(out.getvalue())
    screen.finish(agent_result(reply), 3.21)
    end = final(out, mark)
    assert "Title" in end
    assert "# Title" not in end
    assert "Some bold words." in end
    assert "**" not in end


async def test_reply_printed_before_a_tool_call_is_not_printed_again(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_text_delta("Checking **first**.")
    await screen.on_tool_call("read_file", '{"path": "a.txt"}', call_id="c1")
    await screen.on_tool_result("read_file", ToolResult("text"), call_id="c1")
    screen.finish(agent_result("Checking **first**."), 1.0)
    assert shown(out).count("Checking first.") == 1


async def test_control_sequences_split_across_deltas_never_reach_the_screen(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    for piece in ("Copied", "\x1b]5", "2;c;cHduZWQ=", "\x07 and", "\x1b[2", "J cleared", "\x9b"):
        await screen.on_text_delta(piece)
    for piece in ("plan\x1b]0;t", "itle\x1b\\ ahead"):
        await screen.on_reasoning_delta(piece)
    assert "Copied and cleared" in live_text(screen)
    assert "plan ahead" in live_text(screen)
    mark = len(out.getvalue())
    screen.finish(agent_result("Copied\x1b]52;c;cHduZWQ=\x07 and\x1b[2J cleared\x9b"), 1.0)
    assert "Copied and cleared" in final(out, mark)
    for left in ("\x1b]", "52;", "title", "\\x1b", "\x9b", "[2J"):
        assert left not in out.getvalue()
    assert out.getvalue().count("Copied and cleared") == 1


async def test_a_command_s_output_shows_without_its_control_sequences(
    screen: TerminalScreen,
) -> None:
    await screen.on_tool_call("run_command", '{"command": "make"}', call_id="c1")
    output = "\x1b]0;pwned\x07step \x1b[1mone\x1b[0m\n\x9b2Jtwo\x1bc\n50%\r100%\x1b[K\n"
    await screen.on_tool_output("run_command", "stdout", output, call_id="c1")
    lines = [line.strip() for line in live_text(screen).splitlines()[1:]]
    assert lines == ["step one", "two", "100%"]


async def test_reasoning_is_one_dim_line_while_it_streams_and_one_line_after(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    sentence = "I should look at the tests\nbefore I change anything. "
    for _ in range(10):
        await screen.on_reasoning_delta(sentence)
    thinking = live_text(screen)
    assert thinking.startswith("thinking… ")
    assert "\n" not in thinking
    assert thinking.endswith("before I change anything.")
    await screen.on_text_delta("Done.")
    text = shown(out)
    assert text.count("thought: ") == 1
    thought = text.split("thought: ", 1)[1].split("\n", 1)[0]
    assert thought.startswith("I should look at the tests before I change anything.")
    assert thought.endswith("…")
    assert len(thought) <= 101
    assert "thinking" not in live_text(screen)


async def test_tool_lines_end_with_a_check_or_a_cross_and_the_error(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_tool_call("read_file", '{"path": "src/app.py"}', call_id="c1")
    await screen.on_tool_call("search_files", '{"pattern": "TODO"}', call_id="c2")
    assert "read_file src/app.py" in live_text(screen)
    assert "search_files TODO" in live_text(screen)
    await screen.on_tool_result("read_file", ToolResult("ok"), call_id="c1")
    await screen.on_tool_result(
        "search_files", ToolResult.error("bad pattern: (\nmore detail"), call_id="c2"
    )
    text = shown(out)
    assert "✓ read_file src/app.py" in text
    assert "✗ search_files TODO — bad pattern: (" in text
    assert "more detail" not in text
    assert live_text(screen) == ""


async def test_key_argument_is_cut_and_its_control_characters_escaped(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    command = "echo \x1b[31mred\x1b[0m\n" + "x" * 200
    await screen.on_tool_call("run_command", json.dumps({"command": command}))
    await screen.on_tool_result("run_command", ToolResult("ok"))
    line = next(line for line in shown(out).splitlines() if line.startswith("✓"))
    assert "\\x1b[31mred" in line
    assert "\\n" in line
    assert line.endswith("…")
    assert len(line) < 100


async def test_denied_and_rule_allowed_calls(screen: TerminalScreen, out: io.StringIO) -> None:
    await screen.on_tool_call("run_command", '{"command": "rm -rf build"}', call_id="c1")
    await screen.on_tool_denied("run_command", call_id="c1")
    await screen.on_tool_call("run_command", '{"command": "cargo test"}', call_id="c2")
    await screen.on_tool_approved("run_command", "cargo test:*", "--allow", call_id="c2")
    assert "allowed by cargo test:*" in live_text(screen)
    await screen.on_tool_result("run_command", ToolResult("ok"), call_id="c2")
    text = shown(out)
    assert "⊘ run_command rm -rf build — denied" in text
    assert "✓ run_command cargo test  allowed by cargo test:*" in text


async def test_running_command_shows_the_tail_of_its_output_then_drops_it(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_tool_call("run_command", '{"command": "make test"}', call_id="c1")
    await screen.on_tool_output("run_command", "stdout", "line 1\nline 2\nline 3\n", call_id="c1")
    await screen.on_tool_output(
        "run_command", "stderr", "line 4\nline 5\n\x1b[32mline 6\x1b[0m\nline", call_id="c1"
    )
    await screen.on_tool_output("run_command", "stdout", " 7", call_id="c1")
    lines = live_text(screen).splitlines()
    assert "run_command make test" in lines[0]
    assert [line.strip() for line in lines[1:]] == [
        "line 3",
        "line 4",
        "line 5",
        "line 6",
        "line 7",
    ]
    mark = len(out.getvalue())
    await screen.on_tool_result("run_command", ToolResult("done"), call_id="c1")
    assert live_text(screen) == ""
    assert "line 7" not in written(out, mark)
    assert "✓ run_command make test" in written(out, mark)


async def test_an_edit_prints_the_diff_of_its_file(
    screen: TerminalScreen, out: io.StringIO, project: Path
) -> None:
    (project / "notes.txt").write_text("keep\nold line\n")
    await screen.on_tool_call(
        "edit_file", '{"path": "notes.txt", "old": "old", "new": "new"}', call_id="c1"
    )
    (project / "notes.txt").write_text("keep\nnew line\n")
    await screen.on_tool_result("edit_file", ToolResult("edited"), call_id="c1")
    text = shown(out)
    assert "--- a/notes.txt\n+++ b/notes.txt\n" in text
    assert "-old line\n+new line" in text
    assert text.index("✓ edit_file notes.txt") < text.index("--- a/notes.txt")


async def test_a_new_file_diffs_from_nothing_and_a_failed_edit_shows_none(
    screen: TerminalScreen, out: io.StringIO, project: Path
) -> None:
    await screen.on_tool_call("write_file", '{"path": "new.txt", "content": "hi"}', call_id="c1")
    (project / "new.txt").write_text("hi\n")
    await screen.on_tool_result("write_file", ToolResult("written"), call_id="c1")
    await screen.on_tool_call("write_file", '{"path": "new.txt", "content": "no"}', call_id="c2")
    (project / "new.txt").write_text("changed anyway\n")
    await screen.on_tool_result("write_file", ToolResult.error("disk full"), call_id="c2")
    text = shown(out)
    assert "+++ b/new.txt" in text
    assert "+hi" in text
    assert "+changed anyway" not in text


async def test_a_long_diff_is_cut_and_a_binary_file_has_none(
    screen: TerminalScreen, out: io.StringIO, project: Path
) -> None:
    await screen.on_tool_call("write_file", '{"path": "big.txt"}', call_id="c1")
    (project / "big.txt").write_text("".join(f"line {n}\n" for n in range(500)))
    await screen.on_tool_result("write_file", ToolResult("ok"), call_id="c1")
    (project / "blob.bin").write_bytes(b"\0\1\2")
    await screen.on_tool_call("write_file", '{"path": "blob.bin"}', call_id="c2")
    (project / "blob.bin").write_bytes(b"\0\1\3")
    await screen.on_tool_result("write_file", ToolResult("ok"), call_id="c2")
    text = shown(out)
    assert "+line 196\n" in text
    assert "+line 197" not in text
    assert "… 303 more lines" in text
    assert "b/blob.bin" not in text


async def test_retry_and_compaction_are_one_line_each(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_retry(2, 5, 1.5, "HTTP 503: overloaded\ntry later")
    compaction = ContextCompacted(
        trigger="auto",
        strategy="mechanical",
        requested="llm",
        entries_compacted=12,
        tokens_before=120_000,
        tokens_after=30_000,
    )
    await screen.on_context_compacted(compaction)
    screen.note("sandbox: network is off for commands")
    text = shown(out)
    assert "↻ retry 2/5 in 1.5 s: HTTP 503: overloaded try later\n" in text
    assert "⇣ compacted 12 entries (120,000 → 30,000 tokens, mechanical)\n" in text
    assert "sandbox: network is off for commands\n" in text


async def test_finish_prints_the_totals(screen: TerminalScreen, out: io.StringIO) -> None:
    await screen.on_text_delta("All done.")
    screen.finish(agent_result("All done.", iterations=3), 3.21)
    lines = shown(out).rstrip("\n").splitlines()
    assert lines[-2].strip() == "All done."
    assert lines[-1] == "3 iterations · 1,200 in / 80 out tokens · $0.0012 · 3.2 s"


async def test_finish_with_an_error_shows_it_and_what_the_result_has(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    screen.finish(agent_result(), 0.5, "the model could not be reached")
    lines = shown(out).rstrip("\n").splitlines()
    assert lines == [
        "✗ the model could not be reached",
        "1 iteration · 1,200 in / 80 out tokens · $0.0012 · 0.5 s",
    ]


async def test_finish_without_a_result_shows_the_error_alone(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_tool_call("run_command", '{"command": "sleep 9"}', call_id="c1")
    screen.finish(None, 0.5, "cancelled")
    text = shown(out)
    assert "⊘ run_command sleep 9 — not finished" in text
    assert text.rstrip("\n").splitlines()[-1] == "✗ cancelled"
    assert "iteration" not in text


async def test_pause_takes_the_live_region_away_and_resume_brings_it_back(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_tool_call("run_command", '{"command": "make"}', call_id="c1")
    screen.pause()
    mark = len(out.getvalue())
    screen.console.print("Allow? ")
    await screen.on_tool_output("run_command", "stdout", "building\n", call_id="c1")
    assert out.getvalue()[mark:] == "Allow? \n"
    screen.resume()
    assert "building" in out.getvalue()[mark:]


async def test_without_colour_nothing_is_styled(screen: TerminalScreen, out: io.StringIO) -> None:
    await screen.on_state_change("thinking")
    await screen.on_reasoning_delta("hmm")
    await screen.on_text_delta("**Bold** and `code`:\n\n```python\nx = 1\n```\n")
    await screen.on_tool_call("run_command", '{"command": "ls"}', call_id="c1")
    await screen.on_tool_result("run_command", ToolResult.error("no"), call_id="c1")
    await screen.on_retry(1, 3, 1.0, "timeout")
    screen.finish(agent_result("**Bold**"), 1.0, "failed")
    text = out.getvalue()
    assert STYLING.search(text) is None
    assert "\x1b" not in LIVE_CONTROLS.sub("", text)


def test_with_colour_lines_are_styled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")  # the caller decides, not the environment
    out = io.StringIO()
    make_console(out, color=True, width=100).print(Text("✓ done", style="green"))
    assert STYLING.search(out.getvalue()) is not None


# ── the approval question ────────────────────────────────────────────────────


def request(
    arguments: str = '{"path": "notes.txt"}',
    *,
    preview: str | None = None,
    rules: tuple[SuggestedRule, ...] = (),
    escalation: Escalation | None = None,
    working_directory: str | None = None,
    reason: str | None = None,
) -> ApprovalRequest:
    return ApprovalRequest(
        tool="run_command" if "command" in arguments else "edit_file",
        arguments=arguments,
        risk=Risk.WRITE,
        call_id="c1",
        suggested_rules=rules,
        escalation=escalation,
        working_directory=working_directory,
        preview=preview,
        reason=reason,
    )


def answers(*lines: str) -> tuple[Callable[[str], str], list[str]]:
    """A `read_line` giving `lines` in turn (then EOFError), and the prompts it was given."""
    prompts: list[str] = []
    scripted: Iterator[str] = iter(lines)

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(scripted)
        except StopIteration:
            raise EOFError from None

    return read_line, prompts


RULE = SuggestedRule("session", "run_command(cargo test:*)", "commands starting with cargo test")
RULES = (
    SuggestedRule("session", "edit(src/a.py)", "edits to src/a.py"),
    SuggestedRule("session", "edit(src/**)", "edits in src/"),
    SuggestedRule("project", "edit(src/**)", "edits in src/"),
    SuggestedRule("project", "edit(**)", "edits in this project"),
)


def test_yes_approves(console: Console) -> None:
    read_line, _ = answers("y")
    assert ask(console, request(), read_line).kind == "approved"


def test_no_denies_without_a_reason(console: Console) -> None:
    read_line, _ = answers("no")
    decision = ask(console, request(), read_line)
    assert (decision.kind, decision.message) == ("denied", None)


def test_m_denies_with_what_the_person_types(console: Console) -> None:
    read_line, prompts = answers("m", "use the fixture instead")
    decision = ask(console, request(), read_line)
    assert (decision.kind, decision.message) == ("denied", "use the fixture instead")
    assert prompts[-1] == "Tell the model why: "


def test_m_with_nothing_typed_is_a_plain_denial(console: Console) -> None:
    read_line, _ = answers("m", "  ")
    decision = ask(console, request(), read_line)
    assert (decision.kind, decision.message) == ("denied", None)


def test_always_remembers_the_first_suggested_rule(console: Console, out: io.StringIO) -> None:
    rules = (RULE, SuggestedRule("project", "run_command(cargo test:*)", RULE.label))
    read_line, prompts = answers("a")
    decision = ask(console, request('{"command": "cargo test"}', rules=rules), read_line)
    assert decision.kind == "approved"
    assert decision.remember == RULE
    shown = out.getvalue()
    assert "[1] Allow commands starting with cargo test for this session" in shown
    assert "[2] Always allow commands starting with cargo test" in shown
    assert "run_command(cargo test:*)" in shown  # the rule itself, as it will be listed
    assert prompts[0] == "Allow? [y/n/m/1-2] "


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_each_offered_scope_is_a_numbered_answer(
    console: Console, out: io.StringIO, number: int
) -> None:
    read_line, _ = answers(str(number))
    decision = ask(console, request(rules=RULES), read_line)
    assert decision.kind == "approved" and decision.remember == RULES[number - 1]
    shown = out.getvalue()
    assert "[3] Always allow edits in src/" in shown
    assert "[4] Always allow edits in this project" in shown


def test_a_number_not_offered_asks_again(console: Console, out: io.StringIO) -> None:
    read_line, prompts = answers("5", "0", "²", "n")
    decision = ask(console, request(rules=RULES), read_line)
    assert decision.kind == "denied" and len(prompts) == 4
    assert "Answer y, n, m or 1-4." in out.getvalue()


def test_always_is_not_an_answer_when_no_rule_is_offered(
    console: Console, out: io.StringIO
) -> None:
    read_line, prompts = answers("a", "y")
    assert ask(console, request(), read_line).kind == "approved"
    assert len(prompts) == 2
    assert "[a]" not in out.getvalue()


def test_anything_else_asks_again(console: Console, out: io.StringIO) -> None:
    read_line, prompts = answers("maybe", "", "Y")
    assert ask(console, request(), read_line).kind == "approved"
    assert len(prompts) == 3
    assert "Answer y, n or m." in out.getvalue()


def test_a_terminal_gone_denies(console: Console) -> None:
    read_line, _ = answers()
    decision = ask(console, request(), read_line)
    assert (decision.kind, decision.message) == ("denied", NO_ANSWER)


def test_the_question_shows_the_diff_the_risk_and_the_choices(
    console: Console, out: io.StringIO
) -> None:
    read_line, _ = answers("y")
    ask(console, request(preview=DIFF, reason="a hook asks"), read_line)
    text = out.getvalue()
    assert "edit_file" in text
    assert "risk: write" in text
    assert "reason: a hook asks" in text
    assert DIFF in text
    assert "[y] yes  [n] no  [m] no, and tell the model why" in text
    assert "\x1b" not in text


def test_the_question_shows_the_command_where_it_runs_and_an_escalation(
    console: Console, out: io.StringIO
) -> None:
    escalation = Escalation("network", "needs to download crates")
    read_line, _ = answers("n")
    ask(
        console,
        request(
            '{"command": "cargo fetch\\u001b[2J"}',
            working_directory="/work/app",
            escalation=escalation,
        ),
        read_line,
    )
    text = out.getvalue()
    assert "$ cargo fetch\\x1b[2J" in text
    assert "in /work/app" in text
    assert "leave the sandbox for network access: needs to download crates" in text
    assert "\x1b" not in text


def test_the_question_shows_other_arguments_as_json_cut_to_forty_lines(
    console: Console, out: io.StringIO
) -> None:
    items = ", ".join(f'"item {n}"' for n in range(60))
    read_line, _ = answers("y")
    ask(console, request(f'{{"path": "a.txt", "items": [{items}]}}'), read_line)
    text = out.getvalue()
    assert '"path": "a.txt"' in text
    assert '"item 36"' in text
    assert '"item 37"' not in text
    assert "… 25 more lines" in text


async def test_calls_without_ids_are_matched_by_name(
    screen: TerminalScreen, out: io.StringIO
) -> None:
    await screen.on_tool_call("read_file", '{"path": "a.txt"}')
    await screen.on_tool_call("read_file", '{"path": "b.txt"}')
    await screen.on_tool_result("read_file", ToolResult("ok"))
    assert "✓ read_file a.txt" in shown(out)
    assert "read_file b.txt" in live_text(screen)


async def test_a_spinner_shows_while_the_model_works_and_nothing_else_does(
    screen: TerminalScreen,
) -> None:
    await screen.on_state_change("thinking")
    assert "thinking…" in live_text(screen)
    await screen.on_text_delta("Hello")
    assert live_text(screen) == "Hello"
