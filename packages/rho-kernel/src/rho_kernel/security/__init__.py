"""Security primitives: the file sandbox every file tool goes through, the project trust
store that gates what a repository's own files may change, and the redactor that keeps
secrets out of tool output.

Open files through `SandboxRoot` (`ctx.root` in a tool): `open_read`, `open_dir` and
`write_parent` resolve a path without ever letting a symlink lead outside the project, and
refuse writes into `.git` and `.rho` (`PROTECTED_NAMES`).
"""

from rho_kernel.security.redaction import REDACTED, Redactor, StreamRedactor
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

__all__ = [
    "PROTECTED_NAMES",
    "REDACTED",
    "TRUST_STORE_NAME",
    "FileTypeError",
    "PathNotFoundError",
    "ProtectedPathError",
    "Redactor",
    "SandboxDir",
    "SandboxError",
    "SandboxRoot",
    "StreamRedactor",
    "TrustEntry",
    "TrustError",
    "TrustStore",
    "WriteTarget",
    "canonical_root",
    "file_digest",
    "protected_name",
    "trust_store_path",
]
