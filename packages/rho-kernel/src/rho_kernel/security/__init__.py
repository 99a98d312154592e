"""Security primitives: the file sandbox every file tool goes through."""

from rho_kernel.security.sandbox import PathNotFoundError, SandboxError, SandboxRoot

__all__ = ["PathNotFoundError", "SandboxError", "SandboxRoot"]
