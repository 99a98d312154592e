"""The rho console script: CLI and JSON-RPC 2.0 over stdio."""

from __future__ import annotations

# `typing` is left unimported: `rho --help` and `--version` need nothing else from it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["__version__"]

__version__: str  # made on first use, below


def __getattr__(name: str) -> Any:
    """`__version__`, read from the installed metadata on first use (PEP 562): importing
    `importlib.metadata` costs more than the rest of `import rho_rpc`, and most of what
    imports rho_rpc never asks for the version."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import sys

    if "rho_kernel" in sys.modules:  # loaded already (for `ready`): its cheaper reader
        from rho_kernel import lazy_exports

        read_version, _ = lazy_exports(__name__, {}, distribution="rho-rpc")
        return read_version("__version__")  # kept in globals() too
    from importlib import metadata

    try:  # one version per package: its pyproject's, as installed
        version = metadata.version("rho-rpc")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        version = "0+unknown"
    globals()["__version__"] = version
    return version
