"""`ProjectMemory`: the knowledge base of one project, opened on first use and then kept.

Nothing is opened before a tool call or an RPC request needs it, so a missing, locked or
corrupt `memory.db` never stops rho from starting: each use tries again and reports why the
file cannot be used.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel.security import SandboxRoot

if TYPE_CHECKING:
    from rho_memory.api import Memory

#: Where a project's knowledge base lives, relative to its root.
MEMORY_PATH = Path(".rho") / "memory.db"


class ProjectMemory:
    """The `Memory` of the project at `root` (`<root>/.rho/memory.db`), thread-safe."""

    def __init__(self, root: SandboxRoot) -> None:
        self.root = root
        self.path = root.path / MEMORY_PATH
        self._memory: Memory | None = None
        self._lock = threading.Lock()

    def open(self) -> Memory:
        """The open knowledge base, opening (and creating) it on first use. Blocking: call
        it from a worker thread. Raises `MemoryStoreError` saying why the file is unusable;
        a later call tries again."""
        with self._lock:
            if self._memory is None:
                from rho_memory.api import Memory

                self._check_folder()
                self._memory = Memory.open(self.path)
            return self._memory

    def _check_folder(self) -> None:
        """Refuse a `.rho` that leads out of the project (a link in a cloned repository)."""
        from rho_memory.store import MemoryStoreError

        folder = self.path.parent
        if folder.is_symlink() and not self.root.contains(folder.resolve()):
            raise MemoryStoreError(
                f"{folder}: is a symbolic link out of the project; refusing to keep the "
                "knowledge base there"
            )

    def close(self) -> None:
        """Close the knowledge base if it is open."""
        with self._lock:
            if self._memory is not None:
                self._memory.close()
                self._memory = None


__all__ = ["MEMORY_PATH", "ProjectMemory"]
