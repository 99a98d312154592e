"""The `rho-memory` plugin (entry point `rho-memory = "rho_memory.plugin"`): owns `[memory]`."""

from __future__ import annotations

from pydantic import BaseModel

from rho_kernel import hookimpl
from rho_memory.config import MemoryConfig

#: The config section this plugin reads.
SECTION = "memory"


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[memory]` (read it with `config.section("memory", MemoryConfig)`)."""
    return {SECTION: MemoryConfig}


__all__ = ["SECTION", "rho_register_config_sections"]
