"""`[rust]`: where the Rust tools are offered to the model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

#: `auto`: in a project with a Cargo.toml at its root; `always`; `never`.
ToolsOffered = Literal["auto", "always", "never"]


class RustConfig(BaseModel):
    """`[rust]`: `tools` says where the seven Rust tools are offered. Their definitions
    take some 1,600 tokens of every request, which a project without Rust spends for
    nothing; `auto` offers them where the project root holds a Cargo.toml, `always` also
    elsewhere (a crate in a subfolder: `cargo_check` takes a `path`), `never` nowhere.

    Not security relevant: offering a tool grants nothing (each call is approved as its
    risk says), so a project may set it without trust.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    tools: ToolsOffered = "auto"


__all__ = ["RustConfig", "ToolsOffered"]
