"""What rho tells the launcher: one document, passed as an argument.

Every path is absolute and canonical (rho's `ConfinementPolicy` made it so). `namespaces`
is what the backend's probe found works here:

- `"user"`: a user namespace of its own (any uid; a root rho's command becomes uid 65534),
  with mount, PID, IPC and (without network) network namespaces inside it;
- `"mount"`: the same without the user namespace (a root rho where user namespaces are off;
  the command stays uid 0 without a single capability);
- `"none"`: Landlock and seccomp alone (no namespace can be made, as in most containers).

The launcher starts before every command, so its document costs no import: a plain class
(`dataclasses` would bring `inspect`), written with `marshal` (built in, unlike `json`, which
brings `re`) as hexadecimal text. Both ends are the same Python: rho starts the launcher
with its own interpreter.
"""

from __future__ import annotations

import marshal

TYPE_CHECKING = False  # not `typing`'s: importing it is a good part of the launcher's start
if TYPE_CHECKING:
    from typing import Literal

    Namespaces = Literal["user", "mount", "none"]
#: The document's format; a launcher refuses any other.
VERSION = 1
_PATHS = ("writable", "read_only", "read_deny")


class Document:
    """The confinement of one command (see the module)."""

    __slots__ = (
        "cwd",
        "environment",
        "inner_id",
        "namespaces",
        "network",
        "read_deny",
        "read_only",
        "root",
        "seccomp",
        "tmpdir",
        "writable",
    )

    def __init__(
        self,
        *,
        root: str,
        cwd: str,
        namespaces: Namespaces,
        writable: tuple[str, ...] = (),
        read_only: tuple[str, ...] = (),
        read_deny: tuple[str, ...] = (),
        network: bool = False,
        tmpdir: str | None = None,
        seccomp: bytes = b"",
        inner_id: int | None = None,
        environment: dict[str, str] | None = None,
    ) -> None:
        """`tmpdir`: where temporary files go without a private `/tmp` (`"none"`), a
        directory of rho's; `seccomp`: the filter program (classic BPF, native byte order);
        `inner_id`: the uid and gid the command has inside a user namespace;
        `environment`: variables set for the command only, once confined (the dynamic
        loader's: the launcher itself must never load what they name)."""
        self.root = root
        self.cwd = cwd
        self.namespaces: Namespaces = namespaces
        self.writable = tuple(writable)
        self.read_only = tuple(read_only)
        self.read_deny = tuple(read_deny)
        self.network = network
        self.tmpdir = tmpdir
        self.seccomp = seccomp
        self.inner_id = inner_id
        self.environment = dict(environment or {})

    def _fields(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Document) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"Document({self._fields()!r})"

    def encode(self) -> str:
        """The document as the launcher's argument."""
        data = self._fields()
        data["version"] = VERSION
        return marshal.dumps(data, 4).hex()

    @classmethod
    def decode(cls, text: str) -> Document:
        """The document `encode` made; ValueError for anything else."""
        try:
            data = marshal.loads(bytes.fromhex(text))
        except (ValueError, EOFError, TypeError) as exc:
            raise ValueError(f"not a launcher document ({exc})") from None
        if not isinstance(data, dict) or data.pop("version", None) != VERSION:
            raise ValueError("not a launcher document of this version")
        if data.get("namespaces") not in ("user", "mount", "none"):
            raise ValueError(f"unknown namespaces {data.get('namespaces')!r}")
        for name in _PATHS:
            data[name] = tuple(data.get(name, ()))
        try:
            return cls(**data)
        except TypeError as exc:
            raise ValueError(f"not a launcher document ({exc})") from None
