"""Security primitives: the file sandbox every file tool goes through, the command policy
every shell line is checked against, the project trust store that gates what a repository's
own files may change, and the redactor that keeps secrets out of tool output.

Open files through `SandboxRoot` (`ctx.root` in a tool): `open_read`, `open_dir` and
`write_parent` resolve a path without ever letting a symlink lead outside the project, and
refuse writes into `.git` and `.rho` (`PROTECTED_NAMES`).

Open a file by path (outside the project, or a library's own file) with `open_regular` or
`read_regular_file`: a FIFO, device or directory is refused (`NotRegularFileError`) without
waiting on it, and reading is capped (`FileTooLargeError`).

Check a shell line with `CommandPolicy.from_config(ctx.config.shell).check(line)`: a
`Denial` (its `rule` and `reason`) or None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.security.atomic_write import (
        WriteFailed,
        explain_write_error,
        replace_atomically,
    )
    from rho_kernel.security.commands import (
        BUILTIN_DENIED_COMMANDS,
        CommandPolicy,
        Denial,
        command_name,
    )
    from rho_kernel.security.editor_files import EditorFiles
    from rho_kernel.security.key_blocks import KeyBlockLines
    from rho_kernel.security.private_file import PrivateFileError, write_private
    from rho_kernel.security.redaction import REDACTED, Redactor, StreamRedactor
    from rho_kernel.security.regular_file import (
        FileTooLargeError,
        NotRegularFileError,
        check_regular,
        open_regular,
        read_regular_file,
    )
    from rho_kernel.security.sandbox import (
        PROTECTED_NAMES,
        FileTypeError,
        PathNotFoundError,
        ProtectedPathError,
        SandboxDir,
        SandboxError,
        SandboxRoot,
        WriteTarget,
        protected_name,
    )
    from rho_kernel.security.trust import (
        TRUST_STORE_NAME,
        TrustEntry,
        TrustError,
        TrustStore,
        canonical_root,
        file_digest,
        trust_store_path,
    )

_ORIGIN = exports_of(
    {
        "rho_kernel.security.atomic_write": (
            "WriteFailed",
            "explain_write_error",
            "replace_atomically",
        ),
        "rho_kernel.security.commands": (
            "BUILTIN_DENIED_COMMANDS",
            "CommandPolicy",
            "Denial",
            "command_name",
        ),
        "rho_kernel.security.editor_files": ("EditorFiles",),
        "rho_kernel.security.key_blocks": ("KeyBlockLines",),
        "rho_kernel.security.private_file": ("PrivateFileError", "write_private"),
        "rho_kernel.security.redaction": ("REDACTED", "Redactor", "StreamRedactor"),
        "rho_kernel.security.regular_file": (
            "FileTooLargeError",
            "NotRegularFileError",
            "check_regular",
            "open_regular",
            "read_regular_file",
        ),
        "rho_kernel.security.sandbox": (
            "PROTECTED_NAMES",
            "FileTypeError",
            "PathNotFoundError",
            "ProtectedPathError",
            "SandboxDir",
            "SandboxError",
            "SandboxRoot",
            "WriteTarget",
            "protected_name",
        ),
        "rho_kernel.security.trust": (
            "TRUST_STORE_NAME",
            "TrustEntry",
            "TrustError",
            "TrustStore",
            "canonical_root",
            "file_digest",
            "trust_store_path",
        ),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "BUILTIN_DENIED_COMMANDS",
    "PROTECTED_NAMES",
    "REDACTED",
    "TRUST_STORE_NAME",
    "CommandPolicy",
    "Denial",
    "EditorFiles",
    "FileTooLargeError",
    "FileTypeError",
    "KeyBlockLines",
    "NotRegularFileError",
    "PathNotFoundError",
    "PrivateFileError",
    "ProtectedPathError",
    "Redactor",
    "SandboxDir",
    "SandboxError",
    "SandboxRoot",
    "StreamRedactor",
    "TrustEntry",
    "TrustError",
    "TrustStore",
    "WriteFailed",
    "WriteTarget",
    "canonical_root",
    "check_regular",
    "command_name",
    "explain_write_error",
    "file_digest",
    "open_regular",
    "protected_name",
    "read_regular_file",
    "replace_atomically",
    "trust_store_path",
    "write_private",
]
