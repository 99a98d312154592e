"""rho's plugin kernel."""

__version__ = "0.1.0"
