"""The `path` argument of list_dir, find_files and search_files, checked by the sandbox."""

from __future__ import annotations

from dataclasses import dataclass

from rho_kernel import escape_controls
from rho_kernel.security import FileTypeError, PathNotFoundError, SandboxError, SandboxRoot


class ScopeError(Exception):
    """The path cannot be used; the message is the tool's error text for the model."""


@dataclass(frozen=True, slots=True)
class Scope:
    """A checked path: canonical, relative to the root ("" for the root), and its kind."""

    path: str
    is_dir: bool

    @property
    def argument(self) -> str:
        """The path as a relative command-line argument ("." for the root)."""
        return self.path or "."


def sandbox_hint(root: SandboxRoot) -> str:
    """The reminder appended where a path was refused."""
    return (
        f"Paths are relative to the project root ({root.path}); absolute paths must lie "
        "inside it, and there is no cd."
    )


def resolve_scope(root: SandboxRoot, tool: str, path: str) -> Scope:
    """Check `path` (a file or directory inside the sandbox); raise `ScopeError` if unusable.

    Messages show `path` with its control characters escaped."""
    said = escape_controls(path)
    try:
        canonical = root.validate(path if path.strip() else ".")
    except PathNotFoundError:
        raise ScopeError(f"{tool}: path '{said}' does not exist. {sandbox_hint(root)}") from None
    except SandboxError as exc:
        raise ScopeError(f"{tool}: {exc}. {sandbox_hint(root)}") from None
    relative = root.relative(canonical)
    relative = "" if relative == "." else relative
    if any(part.casefold() == ".git" for part in relative.split("/")):
        raise ScopeError(f"{tool}: '{said}' is inside .git, which is never listed or searched")
    try:
        with root.open_dir(relative or "."):
            return Scope(relative, True)
    except FileTypeError:
        pass
    except (SandboxError, OSError) as exc:
        raise ScopeError(f"{tool}: cannot open '{said}': {exc}") from None
    return _file_scope(root, tool, said, relative)


def _file_scope(root: SandboxRoot, tool: str, path: str, relative: str) -> Scope:
    """`relative` as a file scope, once it is known to be a regular file (a FIFO, socket or
    device is refused without blocking on it)."""
    try:
        with root.open_read(relative):
            return Scope(relative, False)
    except FileTypeError as exc:
        article = "an" if exc.kind[0] in "aeiou" else "a"
        raise ScopeError(
            f"{tool}: '{path}' is {article} {exc.kind}; only a directory or a regular file "
            "can be used"
        ) from None
    except (SandboxError, OSError) as exc:
        raise ScopeError(f"{tool}: cannot open '{path}': {exc}") from None


__all__ = ["Scope", "ScopeError", "resolve_scope", "sandbox_hint"]
