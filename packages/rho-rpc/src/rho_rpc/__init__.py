"""The rho console script: CLI and JSON-RPC 2.0 over stdio."""

from importlib import metadata as _metadata

try:  # one version per package: its pyproject's, as installed
    __version__: str = _metadata.version("rho-rpc")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"
