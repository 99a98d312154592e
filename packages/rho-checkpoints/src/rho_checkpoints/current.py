"""Where a runtime's recorder is found: its stash (`RECORDER`), and, for the hook the kernel
calls without a runtime, the context of the running prompt (`CURRENT`). Kept apart from
`rho_checkpoints.recorder` so that finding none imports nothing more."""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

from rho_kernel import StashKey

if TYPE_CHECKING:
    from rho_checkpoints.recorder import Recorder
    from rho_kernel import Runtime

#: Each runtime's recorder (set at startup while `[checkpoints] enabled`).
RECORDER: StashKey[Recorder] = StashKey("rho-checkpoints recorder")
#: The recorder of the runtime whose prompt runs in this context.
CURRENT: contextvars.ContextVar[Recorder | None] = contextvars.ContextVar(
    "rho-checkpoints", default=None
)


def recorder_of(runtime: Runtime) -> Recorder | None:
    """The runtime's recorder (None: checkpoints are off in its config)."""
    return runtime.stash.get(RECORDER)


__all__ = ["CURRENT", "RECORDER", "recorder_of"]
