"""The process runner's start error, in a module of its own so that what only subclasses or
catches it (the confinement state) does not load the runner."""

from __future__ import annotations


class ProcessStartError(Exception):
    """The process could not be started (missing program, bad working directory, …)."""


__all__ = ["ProcessStartError"]
