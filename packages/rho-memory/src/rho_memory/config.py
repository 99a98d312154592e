"""`[memory]`: the settings of the project knowledge base."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class MemoryConfig(BaseModel):
    """`[memory]`: whether the `memory` tool (the knowledge base in `.rho/memory.db`) is on.

    Not security relevant: a project may switch it on or off without trust.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    enabled: bool = False


__all__ = ["MemoryConfig"]
