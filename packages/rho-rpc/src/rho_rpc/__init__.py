"""The rho console script: CLI and JSON-RPC 2.0 over stdio."""

__version__ = "0.1.0"
