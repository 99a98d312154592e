"""The project knowledge base for rho (SQLite FTS5).

- `rho_memory.config.MemoryConfig`: the `[memory]` section, declared by the
  `rho_memory.plugin` entry point.
"""

from __future__ import annotations

from rho_memory.config import MemoryConfig

__version__ = "0.1.0"

__all__ = ["MemoryConfig", "__version__"]
