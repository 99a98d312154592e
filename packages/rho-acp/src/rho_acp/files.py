"""The editor's files: rho's file tools read and write through the client's
`fs/read_text_file` and `fs/write_text_file` when it offers them.

The tools work on worker threads; `ClientFiles` carries each call over to the event loop
the connection runs on and waits for the editor's answer (at most `EDITOR_TIMEOUT`). The
sandbox has checked the path before either method is called (see
`rho_kernel.security.editor_files`). Called on the loop's own thread, it leaves the file to
the disk rather than wait on itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: How long a read or write waits for the editor, in seconds.
EDITOR_TIMEOUT = 60.0


@dataclass(frozen=True)
class FileOffer:
    """Which of ACP's file methods the client said it serves."""

    read: bool = False
    write: bool = False

    @classmethod
    def of(cls, params: Any) -> FileOffer:
        """The offer in an `initialize` request's `params` (anything malformed: none)."""
        capabilities = params.get("clientCapabilities") if isinstance(params, dict) else None
        fs = capabilities.get("fs") if isinstance(capabilities, dict) else None
        if not isinstance(fs, dict):
            return cls()
        return cls(read=fs.get("readTextFile") is True, write=fs.get("writeTextFile") is True)


class ClientFiles:
    """An `EditorFiles` for the ACP session whose id `session_id()` gives."""

    def __init__(
        self,
        client: Any,
        session_id: Callable[[], str],
        offer: FileOffer,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._offer = offer
        self._loop = loop

    def read_text(self, path: Path) -> str | None:
        """The editor's text of `path`, or None (read the disk)."""
        if not self._offer.read or self._on_loop():
            return None
        answer = self._call(
            self._client.read_text_file(session_id=self._session_id(), path=str(path))
        )
        return str(answer.content)

    def write_text(self, path: Path, text: str) -> bool:
        """Have the editor write `text` to `path`; False: write the disk."""
        if not self._offer.write or self._on_loop():
            return False
        self._call(
            self._client.write_text_file(
                session_id=self._session_id(), path=str(path), content=text
            )
        )
        return True

    def _on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def _call(self, work: Coroutine[Any, Any, Any]) -> Any:
        """`work`'s result, run on the connection's loop; failures as `OSError`."""
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result(EDITOR_TIMEOUT)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise OSError(
                errno.ETIMEDOUT, f"the editor did not answer within {EDITOR_TIMEOUT:.0f} s"
            ) from None
        except Exception as exc:  # the client's error answer, or a closed connection
            raise OSError(errno.EIO, f"the editor refused it: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    """The client's error in a few words."""
    data = getattr(exc, "data", None)
    message = data.get("message") if isinstance(data, dict) else None
    return " ".join(str(message or exc or type(exc).__name__).split())[:300]


__all__ = ["EDITOR_TIMEOUT", "ClientFiles", "FileOffer"]
