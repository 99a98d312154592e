"""A runtime's checkpoints: its store (opened on the first snapshot), the snapshots the
turns take, and restoring the files to one.

Snapshots are taken on a worker thread (git runs as a process); a failure is said once on
stderr and never stops the turn. A restore is refused while files it would change were
changed since rho last recorded them (someone else's edits), unless forced, and always while
it would overwrite or delete a file rho could not record (`rho_checkpoints.refusals`);
before it writes anything, the files as they are are recorded, so a restore can be undone.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rho_checkpoints import points
from rho_kernel import diagnostics

if TYPE_CHECKING:
    from rho_checkpoints.changes import Change
    from rho_checkpoints.store import CheckpointStore
    from rho_kernel import Runtime


@dataclass
class Restored:
    """What a restore did: the files it changed (`before` and `after`: the snapshots of the
    files just before and just after it), or the conflicts that stopped it (`reasons`: why
    each is one, by path)."""

    restored: list[Change] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    before: str | None = None
    after: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)


class CheckpointsOff(Exception):
    """Checkpoints cannot be used here; the message says why."""


@dataclass
class Recorder:
    """The checkpoints of one runtime."""

    runtime: Runtime
    max_file_bytes: int
    max_store_bytes: int = 500 << 20
    max_files: int = 100_000
    off: str | None = None
    _store: CheckpointStore | None = None
    _warned: bool = False
    #: The snapshot taken as the running (or last) prompt started.
    _turn_start: str | None = None
    _opening: threading.Lock = field(default_factory=threading.Lock)

    def store(self) -> CheckpointStore:
        """The project's store (opened on first use); raises `CheckpointsOff`."""
        with self._opening:
            return self._open()

    def _open(self) -> CheckpointStore:
        if self.off is not None:
            raise CheckpointsOff(self.off)
        if self._store is None:
            from rho_checkpoints.gitcmd import git_available
            from rho_checkpoints.store import CheckpointStore
            from rho_kernel import state_dir

            problem = git_available()
            if problem is not None:
                self.off = problem
                raise CheckpointsOff(problem)
            root, home = self.runtime.root.path, self.runtime.options.home
            self._store = CheckpointStore.open(
                root,
                state_dir(home),
                max_file_bytes=self.max_file_bytes,
                max_new_files=self.max_files,
            )
        return self._store

    def prime_in_background(self) -> None:
        """Open the store and record the files on a thread of its own, so that the first
        snapshot of the first prompt (which waits for it) finds most of the work done. Called
        with rho's loop running (from `rho_startup`), the thread starts once the loop runs
        again — after rho has said it is ready — not to slow the start down."""
        thread = threading.Thread(target=self._prime, name="rho-checkpoints-prime", daemon=True)
        try:
            asyncio.get_running_loop().call_soon(thread.start)
        except RuntimeError:  # no loop running: now
            thread.start()

    def _prime(self) -> None:
        try:
            store = self.store()
            store.prime()
            store.maintain()  # the first recording writes every file's content loose
        except CheckpointsOff as exc:
            self._warn(str(exc))
        except Exception as exc:  # git failed: off for this runtime, as for a snapshot
            self._turn_off(exc)

    async def snapshot(self, when: str, call_id: str | None = None) -> str | None:
        """Record the files now in the session as a `when` checkpoint; None (said once on
        stderr) when that cannot be done. A `turn_end` one counts the files the turn
        changed since its `turn_start` one."""
        try:
            commit, changed = await asyncio.to_thread(self._take, when)
        except CheckpointsOff as exc:
            self._warn(str(exc))
            return None
        except Exception as exc:  # git failed or hung: off for this runtime, the turn goes on
            self._turn_off(exc)
            return None
        if when == "turn_start":
            self._turn_start = commit
        points.record(self.runtime.session, commit, when, call_id, changed)
        return commit

    def _turn_off(self, problem: Exception) -> None:
        self.off = f"checkpoints are off for this session: {problem}"
        self._warn(self.off)

    def _warn(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            diagnostics.warn(message)

    def _take(self, when: str) -> tuple[str, int]:
        """A snapshot now, and (at a turn's end) how many files differ from its start."""
        store = self.store()
        commit = store.snapshot(f"rho {when}", self.runtime.session.id)
        start = self._turn_start if when == "turn_end" else None
        return commit, len(store.changed_between(start, commit)) if start else 0

    async def prune(self) -> None:
        """Pack the store's objects when enough have gathered, and keep the store within
        `max_store_bytes` (the running session's snapshots stay)."""
        if self.off is not None or self._store is None:
            return
        store, keep = self._store, self.runtime.session.id

        def upkeep() -> None:
            store.maintain()
            store.prune(self.max_store_bytes, keep)

        try:
            await asyncio.to_thread(upkeep)
        except Exception as exc:  # the snapshots stay; said once
            self._warn(f"checkpoints not pruned: {exc}")

    def plan_restore(
        self,
        to: str,
        paths: list[str] | None,
        baseline: str | None,
        *,
        force: bool,
        interrupted: str | None = None,
    ) -> Restored:
        """What returning the files (all, or those at or under `paths`) to snapshot `to`
        would change, and the snapshot of the files before it (blocking: run it on a worker
        thread); nothing is written yet (`apply_restore` does it).

        A file rho could not record (too large, ignored, a FIFO…), which the restore would
        overwrite or delete, is a conflict whatever `force` says: nothing could bring it
        back. Files changed since `baseline` (the files as rho last recorded them) by
        someone else are conflicts unless `force`. A file that is as snapshot `interrupted`
        has it (the target of a restore that never finished: rho wrote it) is not one."""
        store = self.store()
        plan = store.plan(to, paths)
        if not plan.changes:
            return Restored()
        reasons = dict(plan.refused)
        if baseline is not None and not force:
            touched = {change.path for change in store.changed(baseline)}
            if interrupted is not None:
                touched &= {change.path for change in store.changed(interrupted)}
            for change in plan.changes:
                if change.path in touched and change.path not in reasons:
                    reasons[change.path] = (
                        f"{change.path} changed since rho last recorded it, by someone else"
                    )
        if reasons:
            return Restored(conflicts=sorted(reasons), reasons=reasons)
        before = store.snapshot("rho before restore", self.runtime.session.id)
        return Restored(plan.changes, before=before)

    def apply_restore(self, to: str, plan: Restored, paths: list[str] | None = None) -> Restored:
        """Write what `plan` (from `plan_restore` with the same `paths`) lists back to
        snapshot `to`; what was done, with the snapshot of the files after it (blocking)."""
        store = self.store()
        restored = store.restore(to, paths, only={change.path for change in plan.restored})
        after = store.snapshot("rho after restore", self.runtime.session.id)
        return Restored(restored, before=plan.before, after=after)


__all__ = ["CheckpointsOff", "Recorder", "Restored"]
