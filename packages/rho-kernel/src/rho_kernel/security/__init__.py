"""Security primitives: the file sandbox every file tool goes through.

Open files through `SandboxRoot` (`ctx.root` in a tool): `open_read`, `open_dir` and
`write_parent` resolve a path without ever letting a symlink lead outside the project, and
refuse writes into `.git` and `.rho` (`PROTECTED_NAMES`).
"""

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

__all__ = [
    "PROTECTED_NAMES",
    "FileTypeError",
    "PathNotFoundError",
    "ProtectedPathError",
    "SandboxDir",
    "SandboxError",
    "SandboxRoot",
    "WriteTarget",
    "protected_name",
]
