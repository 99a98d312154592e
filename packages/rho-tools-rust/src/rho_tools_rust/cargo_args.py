"""Validation of the values the Rust tools put on a command line.

Every value comes from the model and is hostile until checked: nothing that could be read
as an option (a leading `-`), no NUL, bounded length.
"""

from __future__ import annotations

import re

from rho_kernel.tools import ToolError

_PACKAGE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ERROR_CODE = re.compile(r"[Ee]([0-9]{4})")
#: The longest `test_name` filter accepted.
MAX_TEST_NAME = 200


def check_package(tool: str, package: str | None) -> str | None:
    """`package` if it is a valid cargo package name (letters, digits, `_`, `-`, at most 64,
    not starting with `-`), None when absent or empty; raises `ToolError` otherwise."""
    if package is None or package == "":
        return None
    if not _PACKAGE.fullmatch(package) or package.startswith("-"):
        raise ToolError(
            f"{tool}: invalid package name {package[:80]!r}: a cargo package name has 1 to 64 "
            "letters, digits, '_' or '-' and does not start with '-'"
        )
    return package


def check_test_name(tool: str, test_name: str | None) -> str | None:
    """`test_name` if it is an acceptable libtest filter (no leading `-`, no NUL or line
    break, at most 200 characters), None when absent or empty; raises `ToolError`."""
    if test_name is None or test_name == "":
        return None
    if test_name.startswith("-"):
        raise ToolError(f"{tool}: test_name must not start with '-' (it is a test name filter)")
    if any(c in test_name for c in "\0\r\n"):
        raise ToolError(f"{tool}: test_name must not contain NUL or line breaks")
    if len(test_name) > MAX_TEST_NAME:
        raise ToolError(f"{tool}: test_name is longer than {MAX_TEST_NAME} characters")
    return test_name


def check_error_code(tool: str, code: str) -> str:
    """`code` as rustc spells it (`e0308` → `E0308`); raises `ToolError` unless it is `E`
    followed by four digits."""
    match = _ERROR_CODE.fullmatch(code.strip())
    if match is None:
        raise ToolError(
            f"{tool}: invalid error code {code[:40]!r}: expected E followed by four digits, "
            "e.g. E0308"
        )
    return f"E{match.group(1)}"


__all__ = ["MAX_TEST_NAME", "check_error_code", "check_package", "check_test_name"]
