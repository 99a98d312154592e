"""Restarting a stopped extension: how many times, and what rho says about it.

An extension whose isolate had to be stopped — over its memory limit, stuck past its time
limit, or crashed — is started again with a fresh isolate by its next call (tool, command
or hook), at most `max_restarts` times (default `MAX_RESTARTS`) until rho exits or
`reloadExtensions` loads it anew. Its tools stay in the registry meanwhile. After the last
restart, a stop is final until `reloadExtensions`.
"""

from __future__ import annotations

#: Restarts per extension when `max_restarts` is not configured.
MAX_RESTARTS = 3


def restart_outlook(left: int, done: int) -> str:
    """What follows a stop: whether the next call restarts the extension."""
    if left > 0:
        plural = "s" if left != 1 else ""
        return (
            f"; its next call restarts it with a fresh isolate ({left} restart{plural} left "
            "this session, max_restarts)"
        )
    if done:
        times = f"{done} time{'s' if done != 1 else ''}"
        return f"; it was already restarted {times} (max_restarts): reloadExtensions restarts it"
    return "; reloadExtensions restarts it"


def restart_note(name: str, why: str, done: int, limit: int) -> str:
    """The note on the result of the call that restarted extension `name`."""
    return (
        f"[extension '{name}' was restarted with a fresh isolate (restart {done} of {limit} "
        f"this session): {why}]"
    )


__all__ = ["MAX_RESTARTS", "restart_note", "restart_outlook"]
