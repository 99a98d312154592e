"""The kernel modules a plugin may import (documented in docs/plugins.md, "The public API");
every other `rho_kernel.*` module is internal."""

PUBLIC_MODULES = frozenset(
    {
        "rho_kernel",
        "rho_kernel.testing",
        "rho_kernel.tools",
        "rho_kernel.rpc",
        "rho_kernel.security",
        "rho_kernel.diagnostics",
        "rho_kernel.process",
        "rho_kernel.hookspecs",
        "rho_kernel.session",
        "rho_kernel.frontend",
    }
)
