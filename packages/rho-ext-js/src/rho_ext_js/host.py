"""What an extension's isolate asks of rho: `HostApi`, and the errors of the runtime."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any


class HostError(Exception):
    """A host function refused or failed; the extension sees a JS `Error` with `message`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ExtensionError(Exception):
    """The extension threw (or its manifest is invalid): the JS message and stack."""

    def __init__(self, message: str, stack: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stack = stack


class ExtensionTimeout(ExtensionError):
    """A call ran past `Limits.max_execution_time_s` and was stopped."""


class ExtensionMemoryError(ExtensionError):
    """A call pushed the isolate's heap past `Limits.max_memory_mb`; the isolate is closed."""


@dataclass(frozen=True)
class Limits:
    """What one isolate may use: heap size and time per call (load included)."""

    max_memory_mb: int = 64
    max_execution_time_s: float = 30.0


class HostApi(ABC):
    """The host functions behind `rho.*` and `fetch`.

    Every method but `cwd` gets the opaque `context` given to the call on whose behalf the
    extension asked: the call whose own code, continuation or timer made the request, while
    that call runs. It is None for work whose call is not running (a timer started in
    `onLoad`, a callback of a call that has ended), whichever call is running meanwhile.
    A refusal raises `HostError`; any other exception is reported as an internal error.
    """

    @abstractmethod
    async def log(self, level: str, message: str, context: Any) -> None:
        """Write the extension's log line (`level`: trace, debug, info, warn or error)."""

    @abstractmethod
    async def read_file(self, path: str, context: Any) -> str:
        """The text of `path` (relative to the project root)."""

    @abstractmethod
    async def write_file(self, path: str, content: str, context: Any) -> None:
        """Write `content` to `path`."""

    @abstractmethod
    async def run_command(self, cmd: str, args: list[str], context: Any) -> dict[str, Any]:
        """Run a command: `{"stdout": str, "stderr": str, "exitCode": int}`."""

    @abstractmethod
    async def fetch(self, request: dict[str, Any], context: Any) -> dict[str, Any]:
        """An HTTP request `{url, method, headers, body?}`: `{status, statusText, headers, body}`."""

    @abstractmethod
    def cwd(self) -> str:
        """The directory `rho.getCwd()` reports (the project root)."""


__all__ = [
    "ExtensionError",
    "ExtensionMemoryError",
    "ExtensionTimeout",
    "HostApi",
    "HostError",
    "Limits",
]
