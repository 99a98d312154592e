"""Rust tooling for rho (cargo, rustc, rustdoc, crates.io)."""

__version__ = "0.1.0"
