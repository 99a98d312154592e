"""TypeScript/JavaScript extensions for rho, run in V8."""

__version__ = "0.1.0"
