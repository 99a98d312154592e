"""Security primitives: the file sandbox every file tool goes through, and the project trust
store that gates what a repository's own files may change."""

from rho_kernel.security.sandbox import PathNotFoundError, SandboxError, SandboxRoot
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
    "TRUST_STORE_NAME",
    "PathNotFoundError",
    "SandboxError",
    "SandboxRoot",
    "TrustEntry",
    "TrustError",
    "TrustStore",
    "canonical_root",
    "file_digest",
    "trust_store_path",
]
