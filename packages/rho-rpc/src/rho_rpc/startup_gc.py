"""The cyclic garbage collector held off while rho starts.

Start-up creates tens of thousands of long-lived objects (modules, classes, config models)
and almost no garbage cycles, yet each burst of allocations makes the collector walk them all
again. Collection is paused until `ready` is sent; the objects made so far are then frozen
(`gc.freeze`), so later collections in the agent loop skip them as well.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Hold off cyclic collection (if it is on) until `resume`."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what start-up made and collect normally again (only if `pause` turned it off)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
