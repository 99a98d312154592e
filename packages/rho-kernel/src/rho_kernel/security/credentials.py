"""The credentials rho itself uses, kept out of every process it starts and out of output.

A provider's `api_key_env` (or `--api-key-env`) names a variable whatever its name; it
need not end in `_API_KEY`. `register_credential(name)` records it for the life of the
process: `command_environment` (`rho_kernel.process.shell`) never passes it to a process,
and its value is redacted as a literal by every `Redactor`, however it arrives (a file
holding it, a command's output).

A value shorter than `MIN_LITERAL_CHARS` is not redacted as a literal: a short string occurs
by chance in ordinary text, and redacting it everywhere would garble output without hiding
anything worth hiding (a key that short can be guessed). The variable is still removed.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping

#: Values shorter than this are not redacted as literals (see the module docstring).
MIN_LITERAL_CHARS = 8

_lock = threading.Lock()
_names: set[str] = set()
_values: set[str] = set()
_pattern: re.Pattern[str] | None = None


def register_credential(variable: str, environ: Mapping[str, str] | None = None) -> None:
    """Record environment variable `variable` as a credential rho uses: removed from every
    process rho starts, and its current value in `environ` (default: rho's environment)
    redacted as a literal from now on. Safe to call again and from any thread."""
    if not variable:
        return
    value = (os.environ if environ is None else environ).get(variable, "")
    with _lock:
        _names.add(variable)
    add_secret_literal(value)


def add_secret_literal(value: str) -> None:
    """Redact `value` wherever it appears, for the life of the process (ignored when shorter
    than `MIN_LITERAL_CHARS`, after trimming blanks)."""
    global _pattern
    value = value.strip()
    if len(value) < MIN_LITERAL_CHARS:
        return
    with _lock:
        if value in _values:
            return
        _values.add(value)
        ordered = sorted(_values, key=len, reverse=True)  # the longest first: no tail left over
        _pattern = re.compile("|".join(re.escape(item) for item in ordered))


def credential_variables() -> frozenset[str]:
    """The names of the variables registered with `register_credential`."""
    with _lock:
        return frozenset(_names)


def literal_pattern() -> re.Pattern[str] | None:
    """The pattern of every secret literal registered so far (None: none yet)."""
    return _pattern


__all__ = [
    "MIN_LITERAL_CHARS",
    "add_secret_literal",
    "credential_variables",
    "literal_pattern",
    "register_credential",
]
