"""`[hooks]`: the events hooks run at, and one hook's table, with Claude Code's keys.

A user writes a hook as a `[[hooks.EVENT]]` table:

```toml
[hooks]
claude_settings = false        # also run the hooks of Claude Code's settings files
max_stop_continuations = 3     # how often Stop hooks may keep one prompt going

[[hooks.PreToolUse]]
matcher = "Edit|Write"         # a regular expression over tool names ("" or "*": all)
command = "./scripts/check.sh" # run by /bin/sh in the project root, the event on stdin
timeout = 30                   # seconds (default 60, at most 3600)
on_failure = "block"           # or "allow": a failing hook does not block
```
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rho_kernel import Additive, NeedsTrust, adds_items, turns_on

#: The events a hook may be configured for, named as Claude Code names them.
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)

#: Matchers that match every tool, as in Claude Code.
MATCH_ALL = ("", "*")


def raises_limit(project: Any, user: Any) -> bool:
    """The project's number is larger than the user's (it lets hooks go on for longer)."""
    return isinstance(project, int) and isinstance(user, int) and project > user


class HookCommand(BaseModel):
    """One hook: the command run for an event, the tools it is for and how long it may take.

    `matcher` is a Python regular expression matched against the whole of what the event
    is about (a tool's name for PreToolUse and PostToolUse); `""` and `"*"` match anything.
    `on_failure = "allow"` lets the
    event go on when the hook fails (another exit code than 0 or 2, a timeout, invalid
    output); by default a failing hook blocks.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    command: str = Field(min_length=1)
    matcher: str = ""
    timeout: float = Field(60.0, gt=0, le=3600)
    on_failure: Literal["block", "allow"] = "block"

    # Checks after validation (not field validators), so that the kernel's fast path for
    # plainly valid tables still makes this model without building a validator.
    @model_validator(mode="after")
    def _command_and_matcher(self) -> HookCommand:
        if not self.command.strip():
            raise ValueError("command is empty")
        matcher_problem(self.matcher)
        return self


def matcher_problem(matcher: str) -> None:
    """Raise ValueError naming `matcher` when it is neither a match-all nor a regular
    expression Python compiles."""
    if matcher in MATCH_ALL:
        return
    try:
        re.compile(matcher)
    except re.error as exc:
        raise ValueError(f"matcher {matcher!r} is not a regular expression: {exc}") from None


#: One event's hooks: a repository's new hooks take effect only once the user trusts its
#: file (they run commands it chose); a project adds hooks, never removes the user's.
EventHooks = Annotated[list[HookCommand], NeedsTrust(adds_items), Additive()]


class HooksTable(BaseModel):
    """`[hooks]`: one list of `[[hooks.EVENT]]` tables per event, and two settings.

    rho-hooks reads each file's hooks itself, to know whose they are (`rho_hooks.sources`);
    this model declares the section, so a mistake is a startup error naming the file, and
    carries the markers by which an untrusted project's hooks are left out.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    #: Also run the hooks of Claude Code's settings files (`~/.claude/settings.json`, and a
    #: project's `.claude/settings.json` and `.claude/settings.local.json` once trusted).
    claude_settings: Annotated[bool, NeedsTrust(turns_on)] = False
    #: How many times in a row Stop hooks may keep the model going after it stopped.
    max_stop_continuations: Annotated[int, NeedsTrust(raises_limit)] = Field(3, ge=0, le=100)
    PreToolUse: EventHooks = []
    PostToolUse: EventHooks = []
    UserPromptSubmit: EventHooks = []
    Stop: EventHooks = []
    SessionStart: EventHooks = []
    SessionEnd: EventHooks = []
    PreCompact: EventHooks = []
    Notification: EventHooks = []

    def hooks(self, event: str) -> list[HookCommand]:
        """The hooks configured for `event` (one of `EVENTS`)."""
        if event not in EVENTS:
            raise ValueError(f"unknown hook event {event!r}")
        hooks: list[HookCommand] = getattr(self, event)
        return hooks


def parse_hook(table: Any) -> HookCommand:
    """`table` (a parsed TOML or JSON object) as a hook; raises ValueError naming each
    problem. A plainly valid table is made without building a validator, as the kernel
    makes config sections (`rho_kernel.frontend.constructed`)."""
    from rho_kernel.frontend import constructed

    if not isinstance(table, dict):
        raise ValueError(f"a hook is a table, not {type(table).__name__}")
    made = constructed(HookCommand, table)
    if made is not None:
        return made
    try:
        return HookCommand.model_validate(table)
    except ValidationError as exc:
        raise ValueError("; ".join(_problem(error) for error in exc.errors())) from None


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


__all__ = [
    "EVENTS",
    "MATCH_ALL",
    "EventHooks",
    "HookCommand",
    "HooksTable",
    "matcher_problem",
    "parse_hook",
    "raises_limit",
]
