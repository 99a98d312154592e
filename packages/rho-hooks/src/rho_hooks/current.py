"""Where a runtime's hook state is found: its stash (`STATE`), and, for the hooks the
kernel calls without a runtime, the context of the running prompt (`CURRENT`). Kept apart
from `rho_hooks.dispatch` so that finding no state imports nothing more."""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

from rho_kernel import StashKey

if TYPE_CHECKING:
    from rho_hooks.dispatch import HookState
    from rho_kernel import Runtime

#: Each runtime's state (set at startup when hooks are configured).
STATE: StashKey[HookState] = StashKey("rho-hooks state")

#: The state of the runtime whose prompt runs in this context (set as the prompt starts).
CURRENT: contextvars.ContextVar[HookState | None] = contextvars.ContextVar(
    "rho-hooks state", default=None
)


def state_of(runtime: Runtime) -> HookState | None:
    """The runtime's hook state (None before startup, or with no hooks configured)."""
    return runtime.stash.get(STATE)


__all__ = ["CURRENT", "STATE", "state_of"]
