"""`rho exec --approve-with CMD`: the user's own program answers each approval of the run.

CMD is split into words as a POSIX shell would split them (`shlex`), not run by a shell;
its program is found when `rho exec` starts (a relative path from the directory rho was
started in, a bare name on PATH). For each call that would ask, it runs in the project
root, unconfined — it is the user's own program, as a hook is — with rho's command
environment (no credentials) plus `RHO_PROJECT_DIR`, in its own process group. It gets the
`approval/request` params the JSON-RPC server would send, as one line of JSON on stdin, and
answers on stdout with one of:

- the word `allow` or `deny`;
- a JSON object `{"approved": true|false, "message"?: "…"}`: `message` (with a denial)
  tells the model why.

Anything else fails closed: the call is denied, and stderr says why — a program that cannot
start, exits with a status other than 0, is killed, does not answer within its timeout
(its process group is then stopped), writes more than `MAX_ANSWER_BYTES`, or answers
something else. Its stderr is shown (its last lines) only when it fails.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rho_kernel import escape_controls

if TYPE_CHECKING:
    from rho_kernel import ApprovalDecision, ApprovalRequest, SandboxRoot

#: Seconds an approval command has to answer, unless `--approve-timeout` says otherwise.
DEFAULT_TIMEOUT = 60.0
#: The longest timeout `--approve-timeout` accepts (a day).
MAX_TIMEOUT = 86400.0
#: The most an approval command may write on stdout (and what is kept of its stderr).
MAX_ANSWER_BYTES = 64 * 1024
#: The longest denial message passed on to the model.
MAX_MESSAGE_CHARS = 2000
#: Lines of a failed approval command's stderr shown.
STDERR_LINES = 5

#: What the model is told of a call denied because the approval command failed.
APPROVER_FAILED = (
    "the approval command (rho exec --approve-with) failed to answer, so nobody approved "
    "this call and it did not run. Go on without it if you can; otherwise say what the user "
    "should run."
)


class ApproverError(Exception):
    """The approval command cannot be used or failed; the message says why."""


@dataclass(frozen=True, slots=True)
class Approver:
    """The approval command: its argv (the program resolved) and its timeout in seconds."""

    argv: tuple[str, ...]
    timeout: float = DEFAULT_TIMEOUT

    @property
    def shown(self) -> str:
        """The command as the user gave it, for messages."""
        return escape_controls(shlex.join(self.argv))


def approver(command: str, timeout: float = DEFAULT_TIMEOUT) -> Approver:
    """The approval command `command` (split as a POSIX shell would, its program found now);
    raises `ApproverError` when it cannot be used."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ApproverError(f"--approve-with: cannot split {command!r} into words: {exc}") from None
    if not argv:
        raise ApproverError("--approve-with: the command is empty")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise ApproverError(
            f"--approve-timeout: give seconds above 0 and at most {MAX_TIMEOUT:.0f}"
        )
    program = argv[0]
    found = os.path.abspath(program) if os.sep in program else shutil.which(program)
    if found is None or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise ApproverError(
            f"--approve-with: cannot run '{escape_controls(program)}': no such executable "
            "file" + ("" if os.sep in program else " on PATH")
        )
    return Approver((found, *argv[1:]), timeout)


@dataclass(frozen=True, slots=True)
class Answer:
    """What the approval command answered: approved or not, and why (to tell the model)."""

    approved: bool
    message: str | None = None


def read_answer(stdout: str) -> Answer:
    """The answer on an approval command's stdout (raises `ApproverError` for anything but
    `allow`, `deny` or `{"approved": bool, "message"?: str}`)."""
    text = stdout.strip()
    if text.lower() in ("allow", "deny"):
        return Answer(text.lower() == "allow")
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("approved"), bool):
        shown = escape_controls(text[:80]) + ("…" if len(text) > 80 else "")
        raise ApproverError(
            f"answered '{shown}', not 'allow', 'deny' or "
            '{"approved": true|false, "message"?: "…"}'
            if text
            else "answered nothing"
        )
    unknown = sorted(set(value) - {"approved", "message"})
    if unknown:
        raise ApproverError(f"answered with unknown members: {escape_controls(', '.join(unknown))}")
    message = value.get("message")
    if message is not None and not isinstance(message, str):
        raise ApproverError("answered a 'message' that is not a string")
    return Answer(value["approved"], (message or "").strip()[:MAX_MESSAGE_CHARS] or None)


def _stderr_tail(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()][-STDERR_LINES:]
    return "".join(f"\n  {escape_controls(line)}" for line in lines)


async def ask(approver: Approver, params: dict[str, Any], root: SandboxRoot) -> Answer:
    """Run the approval command with `params` as JSON on stdin and read its answer (raises
    `ApproverError` when it fails; stopped with its process group if the awaiting task is
    cancelled)."""
    from rho_kernel.process import ProcessStartError, command_environment, run_process
    from rho_rpc.execute.outputs import json_text

    env = command_environment([])
    env["RHO_PROJECT_DIR"] = str(root.path)
    try:
        result = await run_process(
            list(approver.argv),
            root=root,
            env=env,
            input=json_text(params) + "\n",
            timeout=approver.timeout,
            max_output_bytes=MAX_ANSWER_BYTES,
        )
    except ProcessStartError as exc:
        raise ApproverError(f"could not start: {exc}") from None
    said = _stderr_tail(result.stderr)
    if result.timed_out:
        raise ApproverError(f"did not answer within {approver.timeout:g} s{said}")
    if result.exit_code is None:
        raise ApproverError(f"was killed (signal {result.signal}){said}")
    if result.exit_code != 0:
        raise ApproverError(f"exited with status {result.exit_code}{said}")
    if result.stdout_bytes > MAX_ANSWER_BYTES:
        raise ApproverError(f"wrote more than {MAX_ANSWER_BYTES >> 10} KiB on stdout")
    try:
        return read_answer(result.stdout)
    except ApproverError as exc:
        raise ApproverError(f"{exc}{said}") from None


class CommandGate:
    """Asks the approval command (`--approve-with`) about each call; a failure denies.

    `note(text)` says a denial; `warn(text)` says why the command failed."""

    def __init__(
        self,
        approver: Approver,
        root: SandboxRoot,
        note: Callable[[str], None],
        warn: Callable[[str], None],
    ) -> None:
        self.approver = approver
        self.root = root
        self.note = note
        self.warn = warn

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        from rho_kernel import ApprovalDecision
        from rho_rpc import render

        tool = escape_controls(request.tool)
        params = render.approval_request(request)
        if request.turn_id is not None:
            params["turnId"] = request.turn_id  # as the server sends it
        try:
            answer = await ask(self.approver, params, self.root)
        except ApproverError as exc:
            self.warn(f"denied {tool}: the approval command ({self.approver.shown}) {exc}")
            return ApprovalDecision.denied(APPROVER_FAILED)
        if answer.approved:
            return ApprovalDecision.approved()
        why = f": {escape_controls(answer.message)}" if answer.message else ""
        self.note(f"denied {tool} by the approval command{why}")
        return ApprovalDecision.denied(answer.message)


__all__ = [
    "APPROVER_FAILED",
    "DEFAULT_TIMEOUT",
    "MAX_ANSWER_BYTES",
    "MAX_TIMEOUT",
    "Answer",
    "Approver",
    "ApproverError",
    "CommandGate",
    "approver",
    "ask",
    "read_answer",
]
