"""Rust tooling for rho (cargo, rustc, rustdoc, crates.io)."""

from importlib import metadata as _metadata

try:  # one version per package: its pyproject's, as installed
    __version__: str = _metadata.version("rho-tools-rust")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"
