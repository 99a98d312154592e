"""rho-acp: rho as an Agent Client Protocol agent.

`rho acp` (the entry point `acp` in the group `rho.subcommands`) serves ACP over stdin and
stdout, so that an editor that hosts ACP agents (Zed, the JetBrains IDEs, Neovim plugins)
drives rho with `{"command": "rho", "args": ["acp"]}`. See docs/acp.md.

- `RhoAgent`: the agent side (one rho runtime per ACP session).
- `main(argv, runtime_options)`: the subcommand.

Each name is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

if TYPE_CHECKING:
    __version__: str
    from rho_acp.agent import RhoAgent
    from rho_acp.cli import main

_LAZY = {"RhoAgent": "rho_acp.agent", "main": "rho_acp.cli"}

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, distribution="rho-acp")

__all__ = ["RhoAgent", "__version__", "main"]
