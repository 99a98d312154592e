"""The kernel's built-in plugins, registered by name before any entry point.

Each can be disabled with `[plugins] disabled = ["<name>"]`. This module is also the kernel's
own `rho` entry point, so listings show the kernel and its version.
"""

from __future__ import annotations

DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("rho.providers", "rho_kernel.providers.plugin"),
    ("rho.approval", "rho_kernel.loop.policy"),
    ("rho.confinement", "rho_kernel.confinement.plugin"),
    ("rho.compaction", "rho_kernel.compaction.plugin"),
)

__all__ = ["DEFAULT_PLUGINS"]
