"""Checks on model-supplied arguments before they go into a cargo argument vector."""

from __future__ import annotations

import re

from rho_kernel.tools import ToolError

_PACKAGE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")
_TEST_NAME_CHARS = 200


def validate_package(tool: str, package: str | None) -> str | None:
    """`package` if it is a cargo package name (`^[A-Za-z0-9_-]{1,64}$`, no leading `-`);
    None stays None; anything else raises `ToolError`."""
    if package is None:
        return None
    if not _PACKAGE.fullmatch(package):
        raise ToolError(
            f"{tool}: invalid package name {package[:80]!r}: use letters, digits, '_' and "
            "'-' (at most 64, not starting with '-')"
        )
    return package


def validate_test_name(tool: str, test_name: str | None) -> str | None:
    """`test_name` if it is a usable test filter (no leading `-`, no NUL, ≤ 200 chars)."""
    if test_name is None:
        return None
    if not test_name or test_name.startswith("-") or "\0" in test_name:
        raise ToolError(f"{tool}: invalid test name {test_name[:80]!r}")
    if len(test_name) > _TEST_NAME_CHARS:
        raise ToolError(f"{tool}: test name is longer than {_TEST_NAME_CHARS} characters")
    return test_name


__all__ = ["validate_package", "validate_test_name"]
