"""What a command runs besides itself, as the command policy checks it.

A wrapper (`sudo curl`), a command string (`bash -c '…'`, `trap '…' EXIT`, a git alias) or a
variable whose value a program later runs (`GIT_SSH_COMMAND`) each hide code behind another
name. The front ends that find it (`wrappers`, `codetext`, `codevars`, `gitcode`) describe
it with these types.
"""

from __future__ import annotations

from dataclasses import dataclass

from rho_kernel.security.shellwords import Word


@dataclass(frozen=True, slots=True)
class InnerArgv:
    """A command run with these words as its argument vector."""

    words: list[Word]


@dataclass(frozen=True, slots=True)
class InnerLine:
    """A line of shell text (`shell` is "bash" or "pwsh") that the command runs: `text`,
    None when it is only known at run time; `what` names where it came from (`bash -c`)."""

    text: str | None
    shell: str
    what: str


@dataclass(frozen=True, slots=True)
class ReadsStdin:
    """A shell that would read its commands from standard input."""


@dataclass(frozen=True, slots=True)
class Opaque:
    """Code that cannot be checked before it runs, such as a script produced by a command
    (`source <(…)`) or a name bound to other code (`alias`, `hash -p`); `why` says which,
    as a clause (\"'hash -p' makes a name run another program\")."""

    why: str


Inner = InnerArgv | InnerLine | ReadsStdin | Opaque


def options_end(args: list[Word], with_value: frozenset[str]) -> int:
    """The index of the first argument after the leading options."""
    index = 0
    while index < len(args):
        value = args[index].value
        if value is None or not value.startswith("-") or value == "-":
            return index
        if value == "--":
            return index + 1
        index += 2 if value in with_value else 1
    return index


def joined_line(words: list[Word], shell: str, what: str) -> InnerLine:
    """`words` joined by spaces as one line (None when any of them is dynamic)."""
    if any(word.value is None for word in words):
        return InnerLine(None, shell, what)
    return InnerLine(" ".join(word.value or "" for word in words), shell, what)


__all__ = ["Inner", "InnerArgv", "InnerLine", "Opaque", "ReadsStdin", "joined_line", "options_end"]
