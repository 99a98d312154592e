"""The private keys rho has seen, remembered by their lines so that a slice of one is redacted.

A command can show a key file in slices that carry neither its BEGIN nor its END line:
`sed -n 10,16p key.pem`, `cut -c1-20 key.pem`, `grep -n A key.pem`. Every private key block
the redactor meets (in a tool's output, a file a tool reads, a diff, or a project file found
by `rho_kernel.security.key_scan`) is learned here, and from then on any run of base64
characters in any text that contains a `WINDOW`-character piece of a learned key line is
redacted whole, wherever it appears.

Nothing of the key's text is kept: only the salted hashes (Python's `hash`, keyed per
process) of every `WINDOW`-character piece of each body line, in a set bounded by
`MAX_WINDOWS`. A piece with few distinct characters (`AAAAAAAAAAAB`, the zero padding of
OpenSSH's format) is not learned: it says nothing about one key and occurs in other data;
nor is the start of a key's first line (`HEADER_CHARS`), the DER header and algorithm that
keys share with certificates. A run inside a public armour (`BEGIN CERTIFICATE`, `BEGIN
PUBLIC KEY`, …) or after an SSH public key's type (`ssh-rsa AAAA…`) is public and is left
alone: a certificate or public key holds the public half of a learned key.

A text is checked at every `STEP`-th position of each base64 run (and at its end), so a
slice of at least `WINDOW + STEP - 1` characters is found wherever it sits in a run, and one
of `WINDOW` characters when it starts or ends the run (`cut -c1-12` makes such runs).
"""

from __future__ import annotations

import re
import sys
import threading
from bisect import bisect_right
from collections.abc import Iterable

from rho_kernel.security.key_shapes import public_label
from rho_kernel.security.redaction import REDACTED

#: The length of a remembered piece of a key line.
WINDOW = 12
#: How far apart the pieces of a text that are looked up lie.
STEP = 4
#: The most pieces remembered (about 70 RSA-4096 keys); later keys are not learned.
MAX_WINDOWS = 200_000
#: A piece needs this many distinct characters to be learned.
MIN_DISTINCT = 6
#: The characters of a key's first body line not learned: the DER header its kind of key
#: shares with certificates and public keys (`MIIEvQIBADANBgkqhkiG9w0BAQEFAASC`).
HEADER_CHARS = 36
#: The most key blocks whose learning is remembered (so a block read again costs nothing).
MAX_BLOCKS = 4096

_BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_MARKS = bytes(ord("a") if byte in _BASE64 else ord(" ") for byte in range(256))
_SEED = b"a" * WINDOW
_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]{1,60}?)-----")
#: The most armour labels whose END one text is searched for.
MAX_ARMOUR_SEARCHES = 64
_SSH_PUBLIC = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp[0-9]+|sk-[a-z0-9\-]+@openssh\.com)"
    r"(?:-cert-v01@openssh\.com)? (AAAA[A-Za-z0-9+/]+=*)"
)
_BODY_TOKEN = re.compile(r"[A-Za-z0-9+/]{12,}")

_lock = threading.Lock()
_windows: set[int] = set()
_blocks: set[int] = set()


def learn_lines(lines: Iterable[str], *, header: bool = True) -> None:
    """Remember the base64 runs of `lines` (the lines of a private key block) as key material.
    A block learned before is skipped. With `header`, the start of its first body line, the
    DER header keys share with public data, is not learned (see `HEADER_CHARS`)."""
    lines = list(lines)
    digest = hash("\n".join(lines))
    with _lock:
        if digest in _blocks or len(_windows) >= MAX_WINDOWS:
            return
    found: set[int] = set()
    for line in lines:
        for token in _BODY_TOKEN.findall(line):
            skip = HEADER_CHARS if header and len(token) >= 40 else 0
            header = header and not skip
            found.update(_pieces(token, skip))
    with _lock:
        if len(_blocks) < MAX_BLOCKS:
            _blocks.add(digest)
        room = MAX_WINDOWS - len(_windows)
        if len(found) > room:
            found = set(list(found)[:room])
        _windows.update(found)


def known() -> bool:
    """Whether any key has been learned (a text is checked only then)."""
    return bool(_windows)


def redact_known(text: str) -> str:
    """`text` with every base64 run that holds a piece of a learned key line redacted."""
    windows = _windows
    if not windows or len(text) < WINDOW:
        return text
    out: list[str] = []
    position = 0
    public = _public_spans(text)
    for start, end in _runs(text):
        if not _holds_known(text[start:end], windows) or _inside(public, start):
            continue
        end += 2 if text.startswith("==", end) else 1 if text.startswith("=", end) else 0
        out.append(text[position:start])
        out.append(REDACTED)
        position = end
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


def _public_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` holds public key material: public armour blocks, SSH public keys."""
    spans: list[tuple[int, int]] = []
    if "-----BEGIN" in text:
        spans += _public_blocks(text)
    if "AAAA" in text:
        spans += [found.span(1) for found in _SSH_PUBLIC.finditer(text)]
    return sorted(spans)


def _public_blocks(text: str) -> list[tuple[int, int]]:
    """The public armour blocks of `text`, BEGIN to its END (at most `MAX_ARMOUR_SEARCHES`
    labels are looked for, so that a text of many BEGIN lines costs little)."""
    spans: list[tuple[int, int]] = []
    position = searches = 0
    missing: set[str] = set()
    for begin in _BEGIN.finditer(text):
        label = begin.group(1)
        if begin.start() < position or label in missing or not public_label(label):
            continue
        if searches >= MAX_ARMOUR_SEARCHES:
            break
        searches += 1
        end_line = f"-----END {label}-----"
        end = text.find(end_line, begin.end())
        if end < 0:
            missing.add(label)
            continue
        position = end + len(end_line)
        spans.append((begin.start(), position))
    return spans


def _inside(spans: list[tuple[int, int]], position: int) -> bool:
    index = bisect_right(spans, (position, sys.maxsize)) - 1
    return index >= 0 and spans[index][0] <= position < spans[index][1]


def _runs(text: str) -> list[tuple[int, int]]:
    """Where the runs of at least `WINDOW` base64 characters of `text` start and end, found
    in a copy of it with one byte per character, base64 ones as `a` (much faster than a
    regular expression over the text, which tries every position)."""
    marks = text.encode("ascii", "replace").translate(_MARKS)
    runs: list[tuple[int, int]] = []
    start = marks.find(_SEED)
    while start >= 0:
        end = marks.find(b" ", start)
        end = len(marks) if end < 0 else end
        runs.append((start, end))
        start = marks.find(_SEED, end)
    return runs


def forget() -> None:
    """Forget every learned key (for tests)."""
    with _lock:
        _windows.clear()
        _blocks.clear()


def _holds_known(token: str, windows: set[int]) -> bool:
    last = len(token) - WINDOW
    if last < 0:
        return False
    starts = list(range(0, last + 1, STEP))
    if starts[-1] != last:
        starts.append(last)
    return not windows.isdisjoint([hash(token[start : start + WINDOW]) for start in starts])


def _pieces(token: str, skip: int = 0) -> set[int]:
    """The hashes of the `WINDOW`-character pieces of `token` from `skip` on that are varied
    enough to learn."""
    return {
        hash(piece)
        for piece in (
            token[start : start + WINDOW] for start in range(skip, len(token) - WINDOW + 1)
        )
        if len(set(piece)) >= MIN_DISTINCT
    }


__all__ = [
    "MAX_WINDOWS",
    "STEP",
    "WINDOW",
    "forget",
    "known",
    "learn_lines",
    "redact_known",
]
