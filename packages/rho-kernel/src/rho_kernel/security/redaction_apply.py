"""The built-in redaction rules applied to a text (see `rho_kernel.security.redaction`).

Kept apart from the `Redactor` so that the rules' regular expressions are compiled on the
first redaction, not when rho starts: a start that redacts nothing never compiles them.
"""

from __future__ import annotations

import base64
import binascii
import re

from rho_kernel.security import known_keys
from rho_kernel.security.credentials import literal_pattern
from rho_kernel.security.key_shapes import ShapeState, redact_key_shapes
from rho_kernel.security.redaction_rules import (
    ASSIGNMENT,
    ASSIGNMENT_CANDIDATE,
    BARE_AWS_SECRET,
    ENV_ASSIGNMENT,
    ENV_NAME_HINT,
    KEY_PREFIX,
    PRIVATE_KEY_BEGIN,
    PRIVATE_KEY_END,
    REDACTED,
    TOKEN_RULES,
    URL_CREDENTIALS,
    WORD_CHAR,
    bare_aws_secret,
    env_name_start,
    judge_assignment,
    judge_env_assignment,
    placeholder,
)


def redact_builtin(text: str, shapes: ShapeState | None = None, *, keep_lines: bool = False) -> str:
    """`text` with the secrets the built-in rules (and rho's own credentials) find replaced.

    `shapes` carries the key-shape rule's runs from one piece of a stream to the next (see
    `rho_kernel.security.key_shapes`); `keep_lines` replaces a private key block line by line,
    so that the text keeps its lines (every other rule keeps them anyway)."""
    literals = literal_pattern()  # rho's own credentials, whatever their shape
    if literals is not None:
        text = literals.sub(REDACTED, text)
    if "-----BEGIN" in text:
        text = _redact_key_blocks(text, keep_lines)
    text = redact_key_shapes(text, shapes)
    text = known_keys.redact_known(text)
    if _ENCODED_ARMOUR in text:
        text = _ENCODED_KEY.sub(_encoded_replacement, text)
    for pattern in TOKEN_RULES:
        text = pattern.sub(_token_replacement, text)
    if "://" in text:
        text = URL_CREDENTIALS.sub(_url_replacement, text)
    if len(text) >= 40:
        text = BARE_AWS_SECRET.sub(_bare_replacement, "\n" + text)[1:]
    text = _redact_assignments(text)
    return _redact_env_names(text)


def open_key_block(text: str) -> bool:
    """Whether `text` ends inside a private key block (its last BEGIN has no END after it)."""
    begins = [begin.end() for begin in PRIVATE_KEY_BEGIN.finditer(text)]
    return bool(begins) and PRIVATE_KEY_END.search(text, begins[-1]) is None


def key_block_end(text: str) -> int | None:
    """Where the first private key END marker of `text` ends (None without one)."""
    end = PRIVATE_KEY_END.search(text)
    return None if end is None else end.end()


def _redact_key_blocks(text: str, keep_lines: bool = False) -> str:
    """Every private key block, BEGIN line to END line (or to the end of `text`), learned
    (`rho_kernel.security.known_keys`) and replaced: whole, or each of its lines."""
    out: list[str] = []
    position = 0
    while True:
        begin = PRIVATE_KEY_BEGIN.search(text, position)
        if begin is None:
            break
        end = PRIVATE_KEY_END.search(text, begin.end())
        block = text[begin.start() : len(text) if end is None else end.end()]
        lines = block.split("\n")
        known_keys.learn_lines(lines)
        out.append(text[position : begin.start()])
        if keep_lines:
            out.append(
                "\n".join(REDACTED + ("\r" if line.endswith("\r") else "") for line in lines)
            )
        else:
            out.append(REDACTED)
        if end is None:
            return "".join(out)
        position = end.end()
    out.append(text[position:])
    return "".join(out)


#: `-----BEGIN ` in base64: a PEM file encoded again (a kubeconfig's `client-key-data`).
_ENCODED_ARMOUR = "LS0tLS1CRUdJTi"
_ENCODED_KEY = re.compile(r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}+={0,2}")


def _encoded_replacement(match: re.Match[str]) -> str:
    """The match, or `[REDACTED]` when it is a private key's PEM in base64."""
    head = match.group(0)[:96]
    try:
        armour = base64.b64decode(head[: len(head) // 4 * 4]).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return match.group(0)
    return REDACTED if PRIVATE_KEY_BEGIN.match(armour) else match.group(0)


def _token_replacement(match: re.Match[str]) -> str:
    start = match.start()
    if start and WORD_CHAR.match(match.string, start - 1):  # `task-…` holds no `sk-` key
        return match.group(0)
    if match.lastindex:  # a rule that keeps a leading part (e.g. `Bearer `)
        return match.group(1) + REDACTED
    return REDACTED


def _url_replacement(match: re.Match[str]) -> str:
    user, password = match.group(1), match.group(2)
    if placeholder(password) or password == user[3:-1]:
        return match.group(0)
    return user + REDACTED


def _redact_assignments(text: str) -> str:
    """Values assigned to secret-named keys, found through the lower-cased text."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer: no shortcut
        return ASSIGNMENT.sub(_assignment_replacement, text)
    out: list[str] = []
    position = 0
    for candidate in ASSIGNMENT_CANDIDATE.finditer(lowered):
        start = candidate.start()
        if lowered.startswith("key", start):
            prefix = KEY_PREFIX.search(lowered, max(0, start - 11), start)
            if prefix is None:
                continue
            start = prefix.start()
        if start < position:
            continue
        match = ASSIGNMENT.match(text, start)
        if match is None:
            continue
        out.append(text[position : match.start()])
        out.append(_assignment_replacement(match))
        position = match.end()
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


_ENV_NAME_WORDS = ("SECRET", "PASS", "PWD", "TOKEN", "CRED", "PRIVATE")


def _bare_replacement(match: re.Match[str]) -> str:
    text, start = match.string, match.start()
    previous = text[text.rfind("\n", 0, start) + 1 : start]
    if bare_aws_secret(match.group(2), previous):
        return match.group(1) + REDACTED
    return match.group(0)


def _redact_env_names(text: str) -> str:
    """Values of `NAME=value` whose upper-case name has a secret segment (`AWS_SECRET_ACCESS_KEY`)."""
    if not any(word in text for word in _ENV_NAME_WORDS):  # substring tests run at C speed
        return text
    out: list[str] = []
    position = 0
    for hint in ENV_NAME_HINT.finditer(text):
        start = env_name_start(text, hint.start())
        if start < position or (start and text[start - 1].isalnum()):
            continue
        match = ENV_ASSIGNMENT.match(text, start)
        if match is None:
            continue
        kept = judge_env_assignment(match)
        if kept is None:
            continue
        out.append(text[position : match.start("value")])
        out.append(kept)
        position = match.end()
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


def _assignment_replacement(match: re.Match[str]) -> str:
    kept = judge_assignment(match)
    if kept is None:
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + kept


__all__ = ["key_block_end", "open_key_block", "redact_builtin"]
