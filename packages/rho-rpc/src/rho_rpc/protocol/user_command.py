"""`runUserCommand`: a shell command of the user's own, run into the conversation."""

from __future__ import annotations

from pydantic import Field

from rho_rpc.protocol.base import Params, Result


class RunUserCommandParams(Params):
    """`runUserCommand`: run a command line the user typed (pi's `!cmd`); its output joins
    the conversation as the user's message."""

    command: str = Field(
        min_length=1, description="The command line, run with the shell rho runs commands with."
    )
    cwd: str | None = Field(
        None, description="Where it starts, relative to the project root (default: the root)."
    )
    timeout: int | None = Field(
        None,
        description="Seconds before it is stopped with every process it started (default "
        "[shell] timeout_secs; at most [shell] max_timeout_secs).",
    )


class RunUserCommandResult(Result):
    """`runUserCommand` result: how the command ended and what joined the conversation."""

    exitCode: int | None = Field(
        description="Its exit status; null when a signal killed it or rho stopped it."
    )
    signal: str | None = Field(None, description="The signal that killed it (e.g. SIGKILL).")
    timedOut: bool = Field(description="Stopped after `timeout` seconds.")
    cancelled: bool = Field(description="Stopped by abort: nothing joined the conversation.")
    output: str = Field(
        description="What it wrote (stdout, then `stderr:` and stderr), redacted; each stream "
        "keeps its head and tail past [shell] max_output_bytes."
    )
    shortened: bool = Field(
        description="The conversation's copy was cut to fit the context (the session entry "
        "keeps it whole in details.FullOutput)."
    )
    entryId: str | None = Field(
        description="The session entry of the user message it became; null when cancelled."
    )
    confinedBy: str | None = Field(
        None, description="The OS sandbox it ran in (e.g. bubblewrap); absent: unconfined."
    )


__all__ = ["RunUserCommandParams", "RunUserCommandResult"]
