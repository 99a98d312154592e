"""File tools for rho."""

__version__ = "0.1.0"
