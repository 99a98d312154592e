"""The terminal screen of `rho exec`: one turn drawn with rich for a person watching it.

`TerminalScreen` is an `Observer`. What is still changing (the reply as it streams, the
reasoning, the tool calls running with the tail of their output) is drawn in one `Live`
region, redrawn on each event (never on a timer); what is final (a tool call's outcome, an
edit's diff, a retry) is printed above it and stays. At the end the streamed reply is replaced
by its Markdown rendering, followed by a line of totals. `ask` puts an approval question.

Nothing shown that came from the model, a tool or a file can move the cursor, restyle the
screen or reach the terminal's clipboard: the model's text (reply and reasoning) and a
command's output have their control sequences removed (`controls`), as a terminal shows
text; what identifies a call (names, arguments, paths, an approval's preview) has its
control characters written as escapes (`\\x1b`), so it shows exactly what would run.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from rho_kernel import ApprovalDecision, Observer
from rho_kernel.security import PathNotFoundError, SandboxError
from rho_rpc.execute.controls import ControlStripper, strip_controls

if TYPE_CHECKING:
    from rich.syntax import Syntax

    from rho_kernel import (
        AgentResult,
        ApprovalRequest,
        ContextCompacted,
        SuggestedRule,
        ToolResult,
    )
    from rho_kernel.frontend import SandboxStatus
    from rho_kernel.security import SandboxRoot

#: The arguments that name what a call is about, in the order one is chosen.
KEY_ARGUMENTS = ("path", "command", "pattern", "query", "name")
#: The longest key argument shown on a tool line.
ARGUMENT_CHARS = 80
#: How much of the reasoning the live `thinking…` line shows (its end).
THINKING_CHARS = 80
#: How much of the reasoning the final `thought:` line keeps (its start).
THOUGHT_CHARS = 100
#: The longest first line of an error shown on a failed tool line.
ERROR_CHARS = 120
#: Lines of a running call's output shown under its line.
TAIL_LINES = 5
#: The most lines of an edit's diff printed (then `… N more lines`).
MAX_DIFF_LINES = 200
#: Files larger than this get no diff.
MAX_DIFF_FILE_BYTES = 1 << 20
#: The most lines of an approval's arguments shown.
PREVIEW_LINES = 40
#: Why a call is denied when the terminal gave no answer.
NO_ANSWER = "no answer came from the terminal"
#: The least time between two draws of the live region, in seconds.
REDRAW_INTERVAL = 0.08

_KEEP_OUTPUT_CHARS = 8192
_REASONING_KEEP_CHARS = 4 * THOUGHT_CHARS
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ESCALATIONS = {"network": "network access", "unconfined": "no sandbox at all"}
_RISK_STYLES = {"read": "green", "write": "yellow", "destructive": "bold red"}


def make_console(file: IO[str], *, color: bool, width: int | None = None) -> Console:
    """A console drawing on `file` as on a terminal: in colour only when `color` (without it,
    no styling codes at all), lines wrapped at `width` (None: the terminal's), and nothing
    highlighted that was not styled on purpose."""
    return Console(
        file=file,
        force_terminal=True,
        color_system="auto" if color else None,
        no_color=not color,
        soft_wrap=False,
        highlight=False,
        width=width,
    )


# ── text ─────────────────────────────────────────────────────────────────────


def visible(text: str, keep: str = "") -> str:
    """`text` with its control characters (but those in `keep`, such as "\\n") written as
    escapes: `\\x1b`, `\\r`, `\\u202e`."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return char if char in keep else char.encode("unicode_escape").decode("ascii")

    return _CONTROL.sub(escape, text)


def cut(text: str, limit: int) -> str:
    """`text`, ending in `…` when it is longer than `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def flat(text: str) -> str:
    """`text` on one line (every run of white space one space), escaped."""
    return visible(" ".join(text.split()))


def one_line(text: str, limit: int) -> str:
    """`text` on one line (see `flat`), cut to `limit` characters."""
    return cut(flat(text), limit)


def decoded_arguments(arguments: str) -> dict[str, Any]:
    """A call's arguments as an object ({} when they are not a JSON object)."""
    try:
        decoded = json.loads(arguments)
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def key_argument(arguments: dict[str, Any]) -> str:
    """What a call is about: the first of `KEY_ARGUMENTS` it has, escaped and cut."""
    for key in KEY_ARGUMENTS:
        value = arguments.get(key)
        if value is None or value == "":
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return cut(visible(text), ARGUMENT_CHARS)
    return ""


def output_tail(output: str, count: int) -> list[str]:
    """The last `count` lines of a command's output as a terminal would leave them: control
    sequences dropped, a line rewritten after `\\r` shown as rewritten."""
    lines = strip_controls(output, keep="\n\t\r").split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [visible(line.rstrip("\r").rsplit("\r", 1)[-1], "\t") for line in lines[-count:]]


def first_line(text: str) -> str:
    """The first line of `text` that is not blank ("" when there is none)."""
    return next((line for line in text.splitlines() if line.strip()), "")


def elapsed_text(seconds: float) -> str:
    """A duration as a person reads it: `3.2 s`, `2 m 05 s`."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 iteration`, `3 iterations` (`words`: the plural, when not `word` and an s)."""
    return f"{count:,} {word}" if count == 1 else f"{count:,} {words or word + 's'}"


# ── diffs ────────────────────────────────────────────────────────────────────


def read_text(root: SandboxRoot, path: str) -> str | None:
    """The text of the file at `path` under `root`: "" when it does not exist, None when it
    cannot be read, is binary or is larger than `MAX_DIFF_FILE_BYTES`."""
    try:
        with root.open_read(path) as handle:
            data = handle.read(MAX_DIFF_FILE_BYTES + 1)
    except PathNotFoundError:
        return ""
    except (SandboxError, OSError, ValueError):
        return None
    if len(data) > MAX_DIFF_FILE_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def unified_diff(path: str, before: str, after: str) -> str:
    """The unified diff from `before` to `after` (`a/path`, `b/path`), cut after
    `MAX_DIFF_LINES` lines, escaped; "" when nothing changed."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"a/{path}", f"b/{path}", lineterm=""
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more lines"]
    return visible("\n".join(lines), "\n\t")


def diff_view(diff: str) -> Syntax:
    """A unified diff, highlighted."""
    from rich.syntax import Syntax  # (pygments: imported once a diff is shown)

    return Syntax(diff, "diff", theme="ansi_dark", line_numbers=False)


# ── the screen ───────────────────────────────────────────────────────────────


@dataclass(slots=True)
class _Call:
    """A tool call on screen: its line, the tail of its output, the file it edits."""

    name: str
    argument: str
    spinner: Spinner
    path: str | None = None
    before: str | None = None
    output: str = ""
    allowed_by: str | None = None

    def label(self, style: str = "") -> Text:
        """`name arg`, then a dim `allowed by <rule>` when a rule let it run."""
        name = cut(visible(self.name), ARGUMENT_CHARS)
        text = Text(f"{name} {self.argument}".rstrip(), style=style)
        if self.allowed_by is not None:
            text.append(f"  allowed by {self.allowed_by}", style="dim")
        return text


class _Current:
    """What the screen's live region holds at the moment it is drawn: the live display
    keeps this one object, so a line printed above it redraws the region as it is now."""

    def __init__(self, screen: TerminalScreen) -> None:
        self._screen = screen

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """Draw the screen's `renderable()`."""
        yield self._screen.renderable()


class TerminalScreen(Observer):
    """Draws one turn on `console` for a person watching (see the module).

    `root` is the project, whose files an edit's diff is read from; a call of one of
    `edit_tools` (`write_file`, `edit_file`, …) shows the diff of the file its `path`
    argument names. Call `finish` when the turn has ended, `pause`/`resume` around a question.
    Retries and compactions are drawn here, so the loop does not say them on stderr too.
    """

    shows_progress = True

    def __init__(self, console: Console, root: SandboxRoot, edit_tools: Collection[str]) -> None:
        self.console = console
        self._root = root
        self._edit_tools = frozenset(edit_tools)
        self._live: Live | None = None
        self._drawn = float("-inf")
        self._redraw: asyncio.TimerHandle | None = None
        self._paused = False
        self._thinking = False
        self._waiting = Spinner("dots", Text("thinking…", style="dim"))
        self._calls: dict[str, _Call] = {}
        self._unnamed_calls = 0
        self._reasoning_head = ""
        self._reasoning_tail = ""
        self._reasoning_chars = 0
        self._text: list[str] = []
        self._printed_reply: str | None = None
        # The model's text streams in deltas; a control sequence may be split across them.
        self._text_filter = ControlStripper()
        self._reasoning_filter = ControlStripper()

    # ── what is drawn ────────────────────────────────────────────────────────

    def renderable(self) -> RenderableType:
        """What the live region shows now: the running calls (each with the tail of its
        output), the reasoning's last words, the reply streamed so far."""
        parts: list[RenderableType] = []
        for call in self._calls.values():
            parts.append(call.spinner)
            parts.extend(
                Text(f"  {line}", style="dim", no_wrap=True, overflow="ellipsis")
                for line in output_tail(call.output, TAIL_LINES)
            )
        if self._reasoning_chars:
            room = min(THINKING_CHARS, self.console.width - len("thinking… "))
            thinking = flat(self._reasoning_tail)[-max(room, 1) :]
            parts.append(
                Text(f"thinking… {thinking}", style="dim", no_wrap=True, overflow="ellipsis")
            )
        if self._text:
            parts.append(self._streamed_text())
        if not parts and self._thinking:
            parts.append(self._waiting)
        return Group(*parts)

    def _streamed_text(self) -> Text:
        """The end of the reply streamed so far, as many rows as fit the terminal."""
        width = self.console.width
        rows = max(self.console.height - 6, 4)
        tail: list[str] = []
        size = 0
        for piece in reversed(self._text):
            tail.append(piece)
            size += len(piece)
            if size > width * rows:
                break
        lines = visible("".join(reversed(tail)), "\n\t").split("\n")[-rows:]
        wrapped = Text("\n".join(lines)).wrap(self.console, width)
        return Text("\n").join(list(wrapped)[-rows:])

    def _refresh(self) -> None:
        """Redraw the live region soon: at once when it was last drawn `REDRAW_INTERVAL`
        ago or more, else once that interval is over (a burst of output or deltas is drawn
        a few times a second, so drawing never holds up the loop)."""
        if self._paused or self._redraw is not None:
            return
        wait = self._drawn + REDRAW_INTERVAL - time.monotonic()
        if wait <= 0:
            self._draw()
            return
        try:
            self._redraw = asyncio.get_running_loop().call_later(wait, self._draw)
        except RuntimeError:  # no loop (a direct call): draw now
            self._draw()

    def _draw(self) -> None:
        """Draw the live region (starting it on the first thing it has to show)."""
        self._redraw = None
        if self._paused:
            return
        self._drawn = time.monotonic()
        if self._live is None:
            if not (self._calls or self._text or self._reasoning_chars or self._thinking):
                return
            self._live = Live(
                _Current(self),
                console=self.console,
                transient=True,
                auto_refresh=False,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        self._live.refresh()

    def _stop_live(self) -> None:
        """Take the live region off the screen."""
        if self._redraw is not None:
            self._redraw.cancel()
            self._redraw = None
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()

    def _print(self, renderable: RenderableType, *, single: bool = False) -> None:
        """Print something final (above the live region while it is shown); `single`: on
        one line, cut with `…` to the terminal's width."""
        if single:
            self.console.print(renderable, no_wrap=True, overflow="ellipsis", crop=True)
        else:
            self.console.print(renderable)

    # ── folding what streamed ────────────────────────────────────────────────

    def _flush_reasoning(self) -> None:
        """Print the reasoning streamed so far as one dim `thought:` line, and forget it."""
        if not self._reasoning_chars:
            return
        head, total = self._reasoning_head, self._reasoning_chars
        self._reasoning_head, self._reasoning_tail, self._reasoning_chars = "", "", 0
        self._reasoning_filter.reset()
        summary = one_line(head, THOUGHT_CHARS + 1)
        if len(summary) > THOUGHT_CHARS or total > len(head):
            summary = summary[:THOUGHT_CHARS].rstrip().removesuffix("…") + "…"
        self._print(Text(f"thought: {summary}", style="dim"), single=True)

    def _take_text(self) -> str:
        """The reply streamed since the last flush (and forget it)."""
        text = "".join(self._text)
        self._text.clear()
        self._text_filter.reset()
        return text

    def _print_reply(self, reply: str) -> None:
        """Print `reply` rendered as Markdown (nothing when it is blank)."""
        if reply.strip():
            from rich.markdown import Markdown  # (imported when a reply is shown)

            self._print(Markdown(visible(reply, "\n\t"), code_theme="ansi_dark"))
            self._printed_reply = reply

    # ── events ───────────────────────────────────────────────────────────────

    async def on_state_change(self, state: str) -> None:
        """Show a `thinking…` spinner while the model is working and nothing else shows."""
        self._thinking = state == "thinking"
        self._refresh()

    async def on_reasoning_delta(self, delta: str) -> None:
        """Show the reasoning's last words on a dim line."""
        delta = self._reasoning_filter.feed(delta)
        if not delta:
            return
        if len(self._reasoning_head) < _REASONING_KEEP_CHARS:
            self._reasoning_head += delta[: _REASONING_KEEP_CHARS - len(self._reasoning_head)]
        self._reasoning_tail = (self._reasoning_tail + delta)[-_REASONING_KEEP_CHARS:]
        self._reasoning_chars += len(delta)
        self._refresh()

    async def on_text_delta(self, delta: str) -> None:
        """Show the reply as it streams."""
        delta = self._text_filter.feed(delta)
        if not delta:
            return
        self._text.append(delta)
        self._flush_reasoning()
        self._refresh()

    async def on_tool_call(self, name: str, arguments: str, call_id: str | None = None) -> None:
        """Show the call's line with a spinner; remember an edited file as it is now."""
        reply = self._take_text()
        decoded = decoded_arguments(arguments)
        call = _Call(name, key_argument(decoded), Spinner("dots"))
        call.spinner.update(text=call.label())
        if call_id is None:
            self._unnamed_calls += 1
        self._calls[call_id or f"#{self._unnamed_calls}"] = call
        self._flush_reasoning()
        self._print_reply(reply)
        self._refresh()
        path = decoded.get("path")
        if name in self._edit_tools and isinstance(path, str) and path:
            call.path = path
            call.before = await asyncio.to_thread(read_text, self._root, path)

    async def on_tool_approved(
        self, name: str, rule: str, source: str, call_id: str | None = None
    ) -> None:
        """Add a dim `allowed by <rule>` to the call's line."""
        call = self._find(name, call_id, remove=False)
        if call is None:
            self._print(Text(f"{visible(name)} allowed by {visible(rule)}", style="dim"))
            return
        call.allowed_by = visible(rule)
        call.spinner.update(text=call.label())
        self._refresh()

    async def on_tool_output(
        self, name: str, stream: str, text: str, call_id: str | None = None
    ) -> None:
        """Show the last lines of the running call's output under its line."""
        call = self._find(name, call_id, remove=False)
        if call is not None and text:
            call.output = (call.output + text)[-_KEEP_OUTPUT_CHARS:]
            self._refresh()

    async def on_tool_denied(self, name: str, call_id: str | None = None) -> None:
        """The call's line becomes final: `⊘ name arg — denied`."""
        call = self._find(name, call_id) or _Call(name, "", Spinner("dots"))
        line = Text("⊘ ", style="yellow").append_text(call.label("yellow"))
        self._print(line.append(" — denied", style="yellow"), single=True)
        self._refresh()

    async def on_tool_result(
        self,
        name: str,
        result: ToolResult,
        call_id: str | None = None,
        full_output: str | None = None,
    ) -> None:
        """The call's line becomes final (`✓` or `✗` and the error's first line); an edit's
        diff follows it."""
        call = self._find(name, call_id) or _Call(name, "", Spinner("dots"))
        if result.is_error:
            line = Text("✗ ", style="red").append_text(call.label("red"))
            error = one_line(first_line(result.output), ERROR_CHARS)
            self._print(line.append(f" — {error}" if error else "", style="red"), single=True)
        else:
            self._print(Text("✓ ", style="green").append_text(call.label("green")), single=True)
        self._refresh()
        if not result.is_error and call.path is not None and call.before is not None:
            after = await asyncio.to_thread(read_text, self._root, call.path)
            diff = "" if after is None else unified_diff(call.path, call.before, after)
            if diff:
                self._print(diff_view(diff))
                self._refresh()

    async def on_retry(self, attempt: int, max_attempts: int, delay: float, reason: str) -> None:
        """One yellow line: `↻ retry 2/5 in 1.5 s: <reason>`."""
        line = f"↻ retry {attempt}/{max_attempts} in {delay:.1f} s: {one_line(reason, 200)}"
        self._print(Text(line, style="yellow"))
        self._refresh()

    async def on_context_compacted(self, compaction: ContextCompacted) -> None:
        """One dim line: `⇣ compacted N entries (before → after tokens, strategy)`."""
        entries = plural(compaction.entries_compacted, "entry", "entries")
        tokens = f"{compaction.tokens_before:,} → {compaction.tokens_after:,} tokens"
        line = f"⇣ compacted {entries} ({tokens}, {visible(compaction.strategy)})"
        self._print(Text(line, style="dim"))
        self._refresh()

    def _find(self, name: str, call_id: str | None, *, remove: bool = True) -> _Call | None:
        """The running call `call_id` (without one: the oldest running call of `name`),
        taken off the live region when `remove`."""
        if call_id is not None:
            key = call_id if call_id in self._calls else None
        else:
            key = next((k for k, c in self._calls.items() if c.name == name), None)
        if key is None:
            return None
        return self._calls.pop(key) if remove else self._calls[key]

    # ── what the caller drives ───────────────────────────────────────────────

    def note(self, text: str) -> None:
        """Print one dim line (a sandbox note, an approval answered without a terminal)."""
        self._print(Text(flat(text), style="dim"))
        self._refresh()

    def pause(self) -> None:
        """Take the live region away, so a question is asked on a clean screen."""
        self._paused = True
        self._stop_live()

    def resume(self) -> None:
        """Draw the live region again after `pause`."""
        self._paused = False
        self._draw()

    def finish(self, result: AgentResult | None, elapsed: float, error: str | None = None) -> None:
        """End the screen: the reply as Markdown (unless printed already), then `✗ <error>`
        when the turn failed, and the totals when there is a `result`."""
        pending = self._take_text()
        calls, self._calls = list(self._calls.values()), {}
        self._thinking = False
        self._stop_live()
        self._flush_reasoning()
        for call in calls:
            line = Text("⊘ ", style="dim").append_text(call.label("dim"))
            self._print(line.append(" — not finished", style="dim"), single=True)
        final = strip_controls(result.reply) if result is not None else ""
        reply = final if final.strip() else pending
        if reply != self._printed_reply:
            self._print_reply(reply)
        if error is not None:
            self._print(Text("✗ " + visible(error, "\n"), style="red"))
        if result is not None:
            self._print(Text(totals(result, elapsed), style="dim"))


def totals(result: AgentResult, elapsed: float) -> str:
    """`3 iterations · 1,200 in / 80 out tokens · $0.0012 · 3.2 s`."""
    tokens = result.usage.tokens
    return (
        f"{plural(result.iterations, 'iteration')} · "
        f"{tokens.input_tokens:,} in / {tokens.output_tokens:,} out tokens · "
        f"${result.usage.total_cost:.4f} · {elapsed_text(elapsed)}"
    )


# ── approvals ────────────────────────────────────────────────────────────────


def ask(
    console: Console, request: ApprovalRequest, read_line: Callable[[str], str]
) -> ApprovalDecision:
    """Ask on the terminal whether the call `request` may run, and return the answer.

    Shows the tool, its risk, the reason, the preview (the diff, the command, or the
    arguments), what an escalation asks for, and the choices: `y`, `n`, `m` (no, and tell
    the model why) and a number for each rule the request offers to remember (`1`: allow
    edits in src/ for this session, …; `a` is the first); `read_line(prompt)` reads one
    answer (raising `EOFError` when the terminal is gone: the call is denied).
    """
    rules = request.suggested_rules
    for part in request_view(request, rules):
        console.print(part)
    count = len(rules)
    numbers = "" if not count else "/1" if count == 1 else f"/1-{count}"
    letters = (
        "y, n or m" if not count else "y, n, m or 1" if count == 1 else f"y, n, m or 1-{count}"
    )
    prompt = f"Allow? [y/n/m{numbers}] "
    try:
        while True:
            answer = read_line(prompt).strip().lower()
            if answer in ("y", "yes"):
                return ApprovalDecision.approved()
            if answer in ("n", "no"):
                return ApprovalDecision.denied()
            if answer == "m":
                why = read_line("Tell the model why: ").strip()
                return ApprovalDecision.denied(why or None)
            chosen = _chosen_rule(answer, rules)
            if chosen is not None:
                return ApprovalDecision.approved(remember=chosen)
            console.print(Text(f"Answer {letters}.", style="yellow"))
    except EOFError:
        return ApprovalDecision.denied(NO_ANSWER)


def _chosen_rule(answer: str, rules: tuple[SuggestedRule, ...]) -> SuggestedRule | None:
    """The offered rule `answer` picks: its number (from 1), or `a`/`always` for the first."""
    if not rules:
        return None
    if answer in ("a", "always"):
        return rules[0]
    if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(rules):
        return rules[int(answer) - 1]
    return None


def request_view(
    request: ApprovalRequest, rules: tuple[SuggestedRule, ...] = ()
) -> list[RenderableType]:
    """What an approval question shows, top to bottom (see `ask`)."""
    risk = str(request.risk)
    parts: list[RenderableType] = [
        Text.assemble(
            ("? ", "bold yellow"),
            (visible(request.tool), "bold"),
            (" wants to run · risk: ", ""),
            (risk, _RISK_STYLES.get(risk, "")),
        )
    ]
    if request.reason:
        parts.append(Text("reason: " + visible(request.reason, "\n")))
    parts.append(preview_view(request))
    if request.sandbox is not None:
        parts.append(sandbox_view(request.sandbox))
    if request.escalation is not None:
        wanted = _ESCALATIONS.get(request.escalation.sandbox, request.escalation.sandbox)
        why = visible(request.escalation.justification, "\n")
        parts.append(Text(f"⚠ asks to leave the sandbox for {wanted}: {why}", style="bold red"))
    choices = Text("[y] yes  [n] no  [m] no, and tell the model why")
    for number, rule in enumerate(rules, 1):
        choices.append(f"\n[{number}] {visible(rule.title)}")
        choices.append(f"  {visible(rule.rule)}", style="dim")
    parts.append(choices)
    return parts


def sandbox_view(sandbox: SandboxStatus) -> Text:
    """How the call's processes would run: confined (by what), or unconfined, in red."""
    from rho_kernel.frontend import sandbox_summary

    said = "sandbox: " + sandbox_summary(sandbox)
    return Text(said, style="dim" if sandbox.mode == "confined" else "bold red")


def preview_view(request: ApprovalRequest) -> RenderableType:
    """The change a call makes: its diff, its command (and where it starts), or its
    arguments pretty-printed (at most `PREVIEW_LINES` lines)."""
    if request.preview:
        return diff_view(visible(request.preview, "\n\t"))
    arguments = decoded_arguments(request.arguments)
    command = arguments.get("command")
    if isinstance(command, str):
        view = Text()
        view.append("$ " + visible(command, "\n\t"), style="bold")
        if request.working_directory:
            view.append(f"\n  in {visible(request.working_directory)}", style="dim")
        return view
    try:
        pretty = json.dumps(json.loads(request.arguments), indent=2, ensure_ascii=False)
    except ValueError:
        pretty = request.arguments
    lines = visible(pretty, "\n\t").split("\n")
    if len(lines) > PREVIEW_LINES:
        lines = [*lines[:PREVIEW_LINES], f"… {len(lines) - PREVIEW_LINES} more lines"]
    from rich.syntax import Syntax

    return Syntax("\n".join(lines), "json", theme="ansi_dark", line_numbers=False)


__all__ = ["TerminalScreen", "ask", "make_console"]
