"""The context of one call into an extension: what it runs for and what it may do.

A host function can do no more than the context that made it: inside a tool call,
`writeFile` needs the tool's declared risk to be `write` or higher and `runCommand`
`destructive` (the user approved a call of that risk, nothing more); a command run by the
client may do what its declared risk allows; hooks and loading get read-only access.

A request belongs to the call whose code made it: the call itself, a continuation of a
request it made, or a timer it scheduled (see `rho_ext_js.isolate`). Work whose call is no
longer running, such as a timer started in `onLoad` or a callback of a call that returned,
gets `IDLE`: read-only, whichever call happens to be running when it fires.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rho_kernel import Risk, ToolContext

CallKind = Literal["load", "hook", "tool", "command"]

#: How far each risk reaches, for the host's checks.
_RANK = {Risk.READ: 0, Risk.NETWORK: 0, Risk.WRITE: 1, Risk.DESTRUCTIVE: 2}


@dataclass(frozen=True)
class CallContext:
    """One call: its kind, its label (`tool search`), the risk it may act with, and the
    running tool call's context (for processes and cancellation), if any."""

    kind: CallKind
    label: str
    allowed: Risk = Risk.READ
    tool: ToolContext | None = None

    def permits(self, needed: Risk) -> bool:
        """Whether an action of risk `needed` fits in this call."""
        return _RANK[self.allowed] >= _RANK[needed]


#: The context of work whose call is not running (a timer or callback started in `onLoad`,
#: a hook, or a call that has ended): read-only.
IDLE = CallContext("hook", "a timer or callback whose call is not running")


__all__ = ["IDLE", "CallContext", "CallKind"]
