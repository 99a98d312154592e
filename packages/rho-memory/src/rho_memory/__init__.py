"""The project knowledge base for rho (SQLite FTS5)."""

__version__ = "0.1.0"
