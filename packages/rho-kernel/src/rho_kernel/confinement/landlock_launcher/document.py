"""What rho tells the launcher: one JSON document, passed as an argument.

Every path is absolute and canonical (rho's `ConfinementPolicy` made it so). `namespaces`
is what the backend's probe found works here:

- `"user"`: a user namespace of its own (any uid; a root rho's command becomes uid 65534),
  with mount, PID, IPC and (without network) network namespaces inside it;
- `"mount"`: the same without the user namespace (a root rho where user namespaces are off;
  the command stays uid 0 without a single capability);
- `"none"`: Landlock and seccomp alone (no namespace can be made, as in most containers).
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass
from typing import Literal

Namespaces = Literal["user", "mount", "none"]
#: The document's format; a launcher refuses any other.
VERSION = 1


@dataclass(frozen=True, slots=True)
class Document:
    """The confinement of one command (see the module)."""

    root: str
    cwd: str
    namespaces: Namespaces
    writable: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    read_deny: tuple[str, ...] = ()
    network: bool = False
    #: Where temporary files go without a private `/tmp` (`"none"`): a directory of rho's.
    tmpdir: str | None = None
    #: The seccomp program (classic BPF, native byte order).
    seccomp: bytes = b""
    #: The uid and gid the command has inside a user namespace.
    inner_id: int | None = None

    def encode(self) -> str:
        """The document as the launcher's argument."""
        data = asdict(self)
        data["seccomp"] = base64.b64encode(self.seccomp).decode("ascii")
        data["version"] = VERSION
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def decode(cls, text: str) -> Document:
        """The document `encode` made; ValueError for anything else."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.pop("version", None) != VERSION:
            raise ValueError("not a launcher document of this version")
        data["seccomp"] = base64.b64decode(data.get("seccomp", ""))
        for name in ("writable", "read_only", "read_deny"):
            data[name] = tuple(data.get(name, ()))
        if data.get("namespaces") not in ("user", "mount", "none"):
            raise ValueError(f"unknown namespaces {data.get('namespaces')!r}")
        return cls(**data)
