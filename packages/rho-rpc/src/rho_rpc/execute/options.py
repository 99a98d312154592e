"""`rho exec`'s command line: rho's usual flags, the prompt, and how output is shaped."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import IO, Literal

from rho_rpc.cli import build_parser
from rho_rpc.execute.approver import DEFAULT_TIMEOUT, Approver, ApproverError, approver

#: The longest prompt read from stdin, in bytes.
MAX_PROMPT_BYTES = 10 << 20

Output = Literal["terminal", "plain", "json", "stream-json"]

#: The exit status of a run refused what it needed (`--fail-on-denial`).
REFUSED = 5

DESCRIPTION = (
    "Run one prompt and exit: the reply on stdout, progress on stderr (or, on a terminal, "
    "rendered as it comes). The prompt is the argument, or stdin when the argument is '-' or "
    "absent and stdin is not a terminal. Exit status: 0 when the model finished, 1 when the "
    "run ended in an error, 2 for usage and configuration errors, 5 with --fail-on-denial "
    "when a call was denied or blocked, 130 on Ctrl-C, 143 on SIGTERM."
)
EPILOG = (
    "A call that needs approval is asked on the terminal, or of the --approve-with command; "
    "without either (CI) it is denied, the model is told why and stderr says so, unless "
    "--approval-mode or --allow lets it run. See docs/exec.md."
)


class UsageError(Exception):
    """The command line cannot work; the message says why (exit status 2)."""


@dataclass(frozen=True)
class ExecArgs:
    """What `rho exec` was asked: the parsed flags, the prompt and the output shape."""

    flags: argparse.Namespace
    prompt: str
    output: Output
    color: bool
    #: Who answers approvals instead of the terminal (`--approve-with`), if anyone.
    approver: Approver | None = None


def build_exec_parser() -> argparse.ArgumentParser:
    """rho's parser with `rho exec`'s own arguments."""
    parser = build_parser()
    parser.prog = "rho exec"
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("prompt", nargs="?", help="the prompt ('-' or absent: read it from stdin)")
    parser.add_argument(
        "--undo",
        action="store_true",
        help="instead of a prompt: return the project's files to how they were before the "
        "last run of the latest session (or --session), with checkpoints on (see "
        "docs/checkpoints.md); files changed since by someone else stop it",
    )
    parser.add_argument(
        "--approve-with",
        metavar="CMD",
        help="answer each approval with your own program: CMD (split into words as a shell "
        "would, not run by one) gets the approval/request as JSON on stdin and answers "
        '\'allow\', \'deny\' or {"approved": true|false, "message": "why"} on stdout; a '
        "crash, a timeout or anything else denies (see docs/exec.md)",
    )
    parser.add_argument(
        "--approve-timeout",
        type=float,
        metavar="SECONDS",
        help=f"how long the --approve-with command may take to answer (default "
        f"{DEFAULT_TIMEOUT:.0f}); then it is stopped and the call denied",
    )
    parser.add_argument(
        "--fail-on-denial",
        action="store_true",
        help=f"exit with status {REFUSED} when a call of the run was denied or blocked (the "
        "run was refused what it needed)",
    )
    shapes = parser.add_mutually_exclusive_group()
    shapes.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object at the end: reply, usage, tool calls, session, finish reason",
    )
    shapes.add_argument(
        "--stream-json",
        action="store_true",
        help="print the server's notifications as they come, one JSON object per line",
    )
    return parser


def read_prompt(argument: str | None, stdin: IO[str]) -> str:
    """The prompt: `argument`, or stdin's text for `-` or none (raises `UsageError`)."""
    if argument is not None and argument != "-":
        text = argument
    elif stdin.isatty():
        raise UsageError("give the prompt as an argument, or pipe it in on stdin")
    else:
        text = stdin.read(MAX_PROMPT_BYTES + 1)
        if len(text.encode("utf-8", "surrogatepass")) > MAX_PROMPT_BYTES:
            raise UsageError(f"the prompt on stdin is longer than {MAX_PROMPT_BYTES >> 20} MiB")
    if not text.strip():
        raise UsageError("the prompt is empty")
    return text


def output_shape(flags: argparse.Namespace, stdout: IO[str]) -> Output:
    """How the run is shown: as asked, else rendered on a terminal, else the reply alone."""
    if flags.json:
        return "json"
    if flags.stream_json:
        return "stream-json"
    return "terminal" if stdout.isatty() else "plain"


def parse(argv: list[str], environ: dict[str, str]) -> ExecArgs:
    """`rho exec`'s arguments (argparse exits with 2 on a malformed line; `UsageError`
    for the rest)."""
    flags = build_exec_parser().parse_args(argv)
    if flags.undo:
        if flags.prompt is not None or flags.ephemeral:
            raise UsageError("--undo takes no prompt and needs a saved session")
        if flags.session is None:
            flags.continue_latest = True
        return ExecArgs(flags, "", output_shape(flags, sys.stdout), False)
    chosen = approval_command(flags)
    prompt = read_prompt(flags.prompt, sys.stdin)
    output = output_shape(flags, sys.stdout)
    color = output == "terminal" and not environ.get("NO_COLOR")
    return ExecArgs(flags, prompt, output, color, chosen)


def approval_command(flags: argparse.Namespace) -> Approver | None:
    """The `--approve-with` command, checked (raises `UsageError`)."""
    if flags.approve_with is None:
        if flags.approve_timeout is not None:
            raise UsageError("--approve-timeout goes with --approve-with")
        return None
    timeout = DEFAULT_TIMEOUT if flags.approve_timeout is None else flags.approve_timeout
    try:
        return approver(flags.approve_with, timeout)
    except ApproverError as exc:
        raise UsageError(str(exc)) from None


__all__ = [
    "MAX_PROMPT_BYTES",
    "REFUSED",
    "ExecArgs",
    "Output",
    "UsageError",
    "approval_command",
    "build_exec_parser",
    "output_shape",
    "parse",
    "read_prompt",
]
