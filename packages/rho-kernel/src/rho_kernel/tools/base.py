"""The tool contract: risk, phase, results, the execution context and the `Tool` base."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel.stash import Stash

if TYPE_CHECKING:
    from rho_kernel.approvals.preview import Preview
    from rho_kernel.cancel import CancelToken
    from rho_kernel.config.model import RhoConfig
    from rho_kernel.confinement.state import ConfinedLauncher, Confinement
    from rho_kernel.process.live_lines import LineFilter
    from rho_kernel.process.runner import ProcessResult
    from rho_kernel.security.key_blocks import KeyBlockLines
    from rho_kernel.security.redaction import Redactor
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.session.store import Session


class Risk(StrEnum):
    """How dangerous a tool is; the approval policy decides from it (wire labels)."""

    READ = "read"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    NETWORK = "network"


class Phase(StrEnum):
    """The phase of work a tool belongs to, declared by the tool itself."""

    EXPLORATION = "exploration"
    EXECUTION = "execution"
    VERIFICATION = "verification"
    CONCLUSION = "conclusion"


#: The risk of a tool that does not declare one: the most careful, so it always asks.
UNDECLARED_RISK = Risk.DESTRUCTIVE


@dataclass(slots=True)
class ToolResult:
    """What a tool returns: text for the model, an error flag, and details the model never sees."""

    output: str
    is_error: bool = False
    details: Any = None

    @classmethod
    def error(cls, output: str, details: Any = None) -> ToolResult:
        return cls(output=output, is_error=True, details=details)


class ToolError(Exception):
    """Raised by a tool to fail with a message meant for the model (no traceback)."""


#: `await sink(stream, text)`: hands live output of a running call to the client.
OutputSink = Callable[[str, str], Awaitable[None]]

#: `outline(arguments, result) -> text`: a call and its result in one short line.
Outliner = Callable[[dict[str, Any], "ToolResult"], str | None]

#: `call_risk(arguments) -> risk`: the risk of one call, for a tool whose calls differ (see
#: `Tool.call_risk`).
RiskOfCall = Callable[[dict[str, Any]], "Risk | str"]

#: `continuation(arguments, result, kept_lines) -> text`: how to see the rest of a result cut
#: to fit the context window after its first `kept_lines` lines.
Continuation = Callable[[dict[str, Any], "ToolResult", int], str | None]

#: `preview(arguments, ctx) -> Preview | None` (async): the change a call would make,
#: planned for its approval (see `Tool.preview`).
Previewer = Callable[[dict[str, Any], "ToolContext"], Awaitable["Preview | None"]]

#: `check(arguments, ctx) -> problem | None` (sync or async): why a call cannot run, said
#: before its approval is asked (see `Tool.check`).
Checker = Callable[[dict[str, Any], "ToolContext"], "Awaitable[str | None] | str | None"]


@dataclass(slots=True)
class ToolContext:
    """What a tool may use while executing.

    `root` is the sandbox every file or shell access must go through, `config` the merged
    configuration, `cancel` the turn's cancellation token, `session` a handle on the running
    session (None outside a session), and `stash` the state of the plugin that contributed
    the tool: one dict per plugin for the life of the process, shared by all its tools and
    kept across calls, prompts and sessions (a fresh dict outside the loop).
    `call_id` names the call being executed; `output` (None outside the loop) receives live
    output, see `report_output`. `confinement` is the project's OS sandbox for commands
    (None: commands run unconfined, as outside the loop); start processes with
    `run_process`, which applies it.
    """

    root: SandboxRoot
    config: RhoConfig
    cancel: CancelToken
    session: Session | None = None
    stash: Stash = field(default_factory=Stash)
    call_id: str | None = None
    output: OutputSink | None = None
    confinement: Confinement | None = None
    #: What the call's confined processes created that the sandbox could not keep
    #: read-only while they ran: new `.git`, `.rho` or git directories, relative to the
    #: root. The loop reports them at the end of the call's result.
    created_repositories: list[str] = field(default_factory=list)
    #: Such entries found after a process in a directory that could not be listed before
    #: it (kept read-only while it ran, so not the process's doing).
    revealed_repositories: list[str] = field(default_factory=list)
    #: The approved escalation of this call (`"network"` or `"unconfined"`), which
    #: `run_process` applies to the processes it starts; None: confined as configured.
    escalation: str | None = None
    #: A person approved this call while no OS sandbox works here (`SandboxStatus.asks`),
    #: so its processes may run unconfined; without that, `run_process` refuses them.
    unconfined_approved: bool = False
    #: The base of the preview the user approved (see `Tool.preview`): write only if the
    #: file still matches it. None: no preview was shown.
    planned: str | None = None

    async def run_process(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        input: str | bytes | None = None,
        timeout: float | None = None,
        max_output_bytes: int = 65536,
        live: bool = True,
        live_filter: LineFilter | None = None,
    ) -> ProcessResult:
        """Run `argv` for the model: confined by the project's sandbox, in its own process
        group, `cwd` inside the project, stopped on timeout and abort, output capped, and
        (with `live`) streamed to the client as it comes, in whole lines; `live_filter(stream,
        line)` rewrites each line before the client sees it (None hides it), e.g. to show a
        program's JSON messages rendered. Without `env` the process gets
        `command_environment()` (rho's environment without secrets). See
        `rho_kernel.process.run_process` for the details and errors; raises
        `ConfinementRefused` (a `ProcessStartError`) when no sandbox works here and the
        process may not run unconfined (`[sandbox] require = true`, or the default `"ask"`
        and no person approved this call: see `unconfined_approved`)."""
        import asyncio

        from rho_kernel.process.runner import run_process

        launcher = None
        if self.confinement is not None and self.escalation != "unconfined":
            # The first call may wait for the backend probe.
            network = self.escalation == "network"
            launcher = await asyncio.to_thread(
                self.confinement.launcher,
                network=network,
                approved_unconfined=self.unconfined_approved,
            )
        result = await run_process(
            argv,
            root=self.root,
            cwd=cwd,
            env=self.command_environment() if env is None else env,
            input=input,
            timeout=timeout,
            max_output_bytes=max_output_bytes,
            on_output=self.report_output if live else None,
            live_filter=live_filter,
            cancel=self.cancel,
            launcher=launcher,
        )
        self.root.forget_repositories()
        if launcher is not None:
            await self._note_created(launcher)
        return result

    async def _note_created(self, launcher: ConfinedLauncher) -> None:
        """Record (or, outside the loop, report) what the process created unprotected."""
        import asyncio

        from rho_kernel.confinement.hints import created_note, revealed_note

        created, revealed = await asyncio.to_thread(launcher.changes_since_start)
        for found, kept, note in (
            (created, self.created_repositories, created_note),
            (revealed, self.revealed_repositories, revealed_note),
        ):
            new = [self.root.relative(path) for path in found]
            new = [path for path in new if path not in kept]
            kept.extend(new)
            if new and self.output is None and self.confinement is not None:
                self.confinement.report(note(new))

    def command_environment(self) -> dict[str, str]:
        """rho's environment without secrets, for any process a tool, an extension, an MCP
        server or a hook starts: no variable rho uses as a credential (a provider's
        `api_key_env`, `--api-key-env`, whatever its name), no `*_API_KEY`, nothing
        `[shell] env_remove` names, no shell startup-file variable (`BASH_ENV`, `ENV`). A
        tool that sets variables of its own starts from this and passes it as `env`."""
        from rho_kernel.process.shell import command_environment

        config = self.config
        providers = (*config.providers, config.provider)
        keys = [p.api_key_env for p in providers if p is not None and p.api_key_env]
        return command_environment([*keys, *config.shell.env_remove])

    def key_block_lines(self, content: str | bytes) -> KeyBlockLines:
        """The lines of a file's whole `content` that lie inside a private key block, for a
        tool that shows only some of its lines (a range, search matches, an edit's context):
        hide every shown line that is `in` the result, e.g. with its `hide`. Empty when
        `[redaction] enabled = false`. See `rho_kernel.KeyBlockLines`."""
        from rho_kernel.security.key_blocks import EMPTY, KeyBlockLines

        if not self.config.redaction.enabled:
            return EMPTY
        return KeyBlockLines.of(content)

    @property
    def redactor(self) -> Redactor:
        """The redactor of this project's `[redaction]` table: what a tool redacts a text
        with before the loop sees it, e.g. a preview's diff (`unified_preview(...,
        redactor=ctx.redactor)`), which it redacts with the whole files' context."""
        from rho_kernel.security.redaction import Redactor

        return Redactor.from_config(self.config.redaction)

    async def report_output(self, stream: str, text: str) -> None:
        """Show `text` (a chunk of `stream`: "stdout", "stderr", …) to the client while the
        call runs. The loop redacts it and sends it as a `tool/output` notification; the
        model still gets only the final result. A no-op outside the loop."""
        if self.output is not None and text:
            await self.output(stream, text)


class Tool:
    """Base class for tools that need state; stateless ones use the `@tool` decorator.

    Subclasses set `name`, `description`, `parameters` (a JSON Schema object), `risk` and
    optionally `phase`, and implement `execute`. A tool that does not declare its `risk` is
    treated as `Risk.DESTRUCTIVE`: every call asks for approval unless the user's
    `[approval.per_tool]` says otherwise. A tool whose calls differ in risk (one that both
    reads and writes, chosen by an argument) declares the highest as `risk` and answers each
    call's own with `call_risk`. `execute` receives the decoded argument
    object; it validates it itself (or through `validate`) and returns a `ToolResult`.
    Raising `ToolError` (or any exception) becomes an error result for the model.
    """

    name: str = ""
    description: str = ""
    # Subclasses replace the schema as a whole; it is never mutated in place.
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012
    #: Undeclared risk asks: only a tool that says it merely reads runs without asking.
    risk: Risk = UNDECLARED_RISK
    phase: Phase | None = None
    #: Whether the tool starts processes (through `ToolContext.run_process`): its approval
    #: request and `listTools` then say how they will be confined.
    runs_processes: bool = False
    #: The risk of a call while the OS sandbox confines the processes it starts (only for
    #: `runs_processes` tools), e.g. `Risk.READ` for a build that runs the repository's code
    #: but, confined, cannot write outside the project or reach the network. None: the
    #: call's own risk applies confined or not.
    confined_risk: Risk | None = None
    #: Whether each call starts a fresh process in the project root, so that nothing a call
    #: changes in its process (a `cd`, an exported variable) carries over to the next, as for
    #: a tool that runs one shell command line per call. When the model repeats such a call
    #: to no effect, rho's stuck-loop nudge reminds it of that (to give directories or full
    #: paths instead of `cd`). Off by default.
    fresh_process_per_call: bool = False
    #: What the text in an approval rule's parentheses is matched against for this tool's
    #: calls: `"command"`, its `command` argument as a shell line (`run_command(cargo
    #: test:*)`), or `"path"`, its `path` argument as a file in the project
    #: (`edit_file(src/**)`). None: only a rule naming the tool alone covers its calls.
    #: A `"path"` tool whose `risk` is `Risk.WRITE` writes the file at its path: it is in the
    #: file-edit class, which the rule `edit(src/**)` names as a whole
    #: (`rho_kernel.approvals.edits`).
    rule_subject: Literal["command", "path"] | None = None
    #: Whether a result too large for its share of the context window keeps its last lines
    #: as well as its first, with a marker where the middle was left out (a command's
    #: output, whose end says how it went), rather than its first lines alone (a file, read
    #: on with an offset). Either way the whole result stays in the session and reaches the
    #: client. Off by default. Added in 0.3.
    cut_keeps_tail: bool = False

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    def call_risk(self, arguments: dict[str, Any]) -> Risk:
        """The risk of one call with these (decoded, not yet validated) arguments; the
        approval policy and the approval request use it. The default is the declared `risk`.

        Override it when calls differ, e.g. `Risk.READ` for a lookup and `Risk.WRITE` for a
        store. Arguments come from the model: answer the highest risk for anything you do not
        recognise. An answer that is not a `Risk`, or an exception, counts as
        `Risk.DESTRUCTIVE` (and is reported)."""
        return self.risk

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """The call and its result in one short line (≤ 200 characters), used when old turns
        are shrunk to fit the context window, e.g. `read_file src/main.rs: 120 lines` or
        `search_files 'foo': 14 matches`. None (the default) lets rho build a generic one."""
        return None

    def continuation(
        self, arguments: dict[str, Any], result: ToolResult, kept_lines: int
    ) -> str | None:
        """How the model can see the rest of a result that was cut to fit the context window
        after its first `kept_lines` lines (e.g. `read on with read_file offset=812`); it ends
        the footer of the cut result. For a `cut_keeps_tail` tool the lines left out start
        after the first `kept_lines` too (its last lines are kept). None (the default) gives
        a generic advice."""
        return None

    async def preview(self, arguments: dict[str, Any], ctx: ToolContext) -> Preview | None:
        """The change this call would make, planned before its approval is asked: a diff to
        show and the `base` it was planned from (see `rho_kernel.approvals.preview`). The
        approved call then runs with `ctx.planned` set to that base and must raise
        `PlanChanged` rather than write when its file no longer matches it; rho then plans
        and asks again. None (the default): no preview. Added in 0.3."""
        return None

    async def check(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why this call cannot run, or None: checked before its approval is asked, so that
        a call that would only fail never reaches the user. The answer (a message for the
        model, as the tool's own failure would say it) becomes the call's error result and
        no approval is asked; None (the default) goes on to the question.

        Check what does not depend on a file's content: the arguments' types and shape, that
        a file to edit exists and is a regular file inside the project, that a command is not
        refused by the command policy. Nobody has approved anything yet, so reveal nothing
        the model could not learn without approval (not whether a text occurs in a file),
        go through `ctx.root` as `execute` does, and change nothing. `execute` still checks
        everything itself: the world may change between the two. Raising `ToolError` is
        the same as returning its message; any other exception is reported and the call
        goes on to its approval. Added in 0.3."""
        return None

    def schema(self) -> dict[str, Any]:
        """The tool definition sent to the model (name, description, parameters)."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


__all__ = [
    "UNDECLARED_RISK",
    "Checker",
    "Continuation",
    "Outliner",
    "OutputSink",
    "Phase",
    "Risk",
    "RiskOfCall",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
]
