"""The version rho reports of itself, wherever it names itself.

rho is released as the distribution that installs the `rho` command (`rho-rpc`); its packs
and the kernel carry versions of their own (`rho --version` and `listPlugins` list them
all). Every place rho names *itself* — `rho --version`'s first line, the JSON-RPC `ready`
notification and `rpc.discover`, ACP's `agentInfo`, the User-Agent of its HTTP requests —
says this one version, so that a bug report quotes one number.
"""

from __future__ import annotations

#: The distribution that installs the `rho` command: rho's own version is its.
RHO_DISTRIBUTION = "rho-rpc"

_known: str | None = None


def rho_version() -> str:
    """rho's version: that of the installed `rho-rpc` distribution, or the kernel's own
    where it is not installed (a program that embeds the kernel alone). Read once, from the
    installed metadata, on first use."""
    global _known
    if _known is None:
        from rho_kernel.lazy import installed_version

        found = installed_version(RHO_DISTRIBUTION)
        _known = found if found != "0+unknown" else installed_version("rho-kernel")
    return _known


__all__ = ["RHO_DISTRIBUTION", "rho_version"]
