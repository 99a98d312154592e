"""Secret redaction: known credential shapes in tool output become `[REDACTED]`.

Every tool result (its text and the strings inside its details) and every chunk of live
output passes through a `Redactor` before it reaches the client, the session or the model.
Redaction is best effort: it finds the secrets whose shape it knows (API keys and tokens of
the common services, private key blocks, JWTs, credentials in URLs, and values assigned to
keys named like `password`, `secret` or `token` in env and config files) and it is tuned to
leave ordinary source code alone — a variable called `token`, a `password_hash`, a
placeholder such as `password = ""` or `os.environ["PASSWORD"]` is not a secret.

Build one per configuration with `Redactor.from_config` (custom patterns compile once, and
are checked, when it is built; the built-in rules compile on the first redaction, in
`rho_kernel.security.redaction_apply`); redact with `redact(text)`, `redact_value(details)`,
or `stream()` for output that arrives in chunks.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rho_kernel.diagnostics import warn as warn_stderr
from rho_kernel.security.credentials import literal_pattern

if TYPE_CHECKING:
    from rho_kernel.config.model import RedactionConfig
    from rho_kernel.security.key_shapes import ShapeState

REDACTED = "[REDACTED]"
"""What a secret is replaced with."""

#: Live output is held back until a line ends, but never more than this many characters.
STREAM_HOLD = 8192

_MAX_DEPTH = 32


class Redactor:
    """Replaces secrets in text with `[REDACTED]`; immutable and safe to share."""

    def __init__(
        self,
        custom_patterns: Iterable[str] = (),
        *,
        enabled: bool = True,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        """A redactor with the built-in rules and `custom_patterns` (regular expressions,
        applied after the built-ins). An invalid or exponential-time pattern is reported
        through `warn` (default: stderr) and skipped. `enabled=False` redacts nothing."""
        self.enabled = enabled
        self.custom: tuple[re.Pattern[str], ...] = tuple(
            _compile_custom(custom_patterns, warn or warn_stderr)
        )

    @classmethod
    def from_config(cls, config: RedactionConfig) -> Redactor:
        """The redactor of a `[redaction]` table; built once per distinct table, so a bad
        pattern is reported once however often this is called."""
        return _cached(bool(config.enabled), tuple(config.custom_patterns))

    def redact(self, text: str) -> str:
        """`text` with every secret found replaced by `[REDACTED]`."""
        return self._redact(text, None)

    def redact_file(self, text: str) -> str:
        """A whole file's `text` redacted line for line: the result has as many lines, each
        the line as shown (a private key's lines are each `[REDACTED]`), so that a diff or
        a range of it can be taken from the result."""
        from rho_kernel.security.file_redaction import redact_file_text

        return redact_file_text(self, text)

    def redact_pair(self, old: str, new: str) -> tuple[str, str]:
        """Two versions of a whole file, each redacted with `redact_file`; a line hidden in
        one is hidden in the other too (a secret whose key line was removed stays hidden)."""
        from rho_kernel.security.file_redaction import redact_file_pair

        return redact_file_pair(self, old, new)

    def redact_diff(self, diff: str, old: str | None, new: str | None) -> str:
        """A unified `diff` from `old` to `new` (the whole files; None: not known) with each
        of its lines shown as `redact_pair` shows that line of the whole file, so that a
        hunk inside a private key shows no key line although it holds no BEGIN or END."""
        from rho_kernel.security.file_redaction import redact_unified_diff

        return redact_unified_diff(self, diff, old, new)

    def _redact(self, text: str, shapes: ShapeState | None, *, keep_lines: bool = False) -> str:
        if not self.enabled or not text:
            return text
        text = _builtin_rules()(text, shapes, keep_lines=keep_lines)
        for custom in self.custom:
            text = custom.sub(_custom_replacement, text)
        return text

    def redact_value(self, value: Any) -> Any:
        """`value` with its strings redacted: a string, a list, tuple or dict of them (dict
        values), a dataclass or a pydantic model (their fields), nested; anything else is
        returned unchanged. Unchanged parts keep their identity."""
        if not self.enabled:
            return value
        return self._value(value, 0)

    def _value(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if depth >= _MAX_DEPTH or value is None or isinstance(value, (int, float, bytes)):
            return value
        if type(value) is dict:
            items = {key: self._value(item, depth + 1) for key, item in value.items()}
            changed = any(items[key] is not value[key] for key in value)
            return items if changed else value
        if type(value) in (list, tuple):
            items_seq = [self._value(item, depth + 1) for item in value]
            if all(new is old for new, old in zip(items_seq, value, strict=True)):
                return value
            return type(value)(items_seq)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self._fields(value, depth, dataclasses.fields(value), dataclasses.replace)
        model_fields = getattr(type(value), "model_fields", None)
        if isinstance(model_fields, dict) and hasattr(value, "model_copy"):
            names = list(model_fields)
            return self._fields(value, depth, names, lambda v, **kw: v.model_copy(update=kw))
        return value

    def _fields(self, value: Any, depth: int, fields: Iterable[Any], rebuild: Any) -> Any:
        changes: dict[str, Any] = {}
        for field in fields:
            name = field if isinstance(field, str) else field.name
            old = getattr(value, name, None)
            new = self._value(old, depth + 1)
            if new is not old:
                changes[name] = new
        if not changes:
            return value
        try:
            return rebuild(value, **changes)
        except Exception:  # a class that cannot be rebuilt: better its text than its secret
            return self.redact(str(value))

    def stream(self) -> StreamRedactor:
        """A redactor for one stream of live output, delivered in chunks."""
        return StreamRedactor(self)


class StreamRedactor:
    """Redacts a stream chunk by chunk, so that a secret split across chunks is still caught.

    `feed` returns the part of the stream that is safe to show now: whole lines (a secret
    never spans a line break, except a private key block, which is followed to its end), or
    — for a line longer than `STREAM_HOLD` — up to its last blank. The rest is held until
    the next chunk or `flush`, and so are lines whose meaning the next line may change:
    base64 lines (the next may make them a run of key lines, or be a key's END line) and a
    line ending in a secret's name and its separator (`"password":`, its value next).
    """

    def __init__(self, redactor: Redactor) -> None:
        """A stream redacted by `redactor`."""
        from rho_kernel.security.key_shapes import ShapeState

        self.redactor = redactor
        self._pending = ""
        self._in_key_block = False
        self._shapes = ShapeState()

    def feed(self, chunk: str) -> str:
        """Take `chunk`; return the redacted text that can be shown now (maybe empty)."""
        if not self.redactor.enabled:
            return chunk
        text = self._pending + chunk
        cut = text.rfind("\n") + 1
        if cut and len(text) - cut <= STREAM_HOLD:
            held = _held_back(text, cut)
            if len(text) - held <= STREAM_HOLD:  # never more than this is held
                cut = held
        if cut == 0 and len(text) > STREAM_HOLD:
            cut = _outside_literals(text, _safe_cut(text, len(text) - _KEEP))
        self._pending = text[cut:]
        return self._emit(text[:cut])

    def flush(self) -> str:
        """Everything still held, redacted (call once the stream has ended)."""
        from rho_kernel.security.key_shapes import ShapeState

        text, self._pending = self._pending, ""
        emitted = self._emit(text)
        self._in_key_block = False
        self._shapes = ShapeState()
        return emitted

    def _emit(self, text: str) -> str:
        if not text:
            return ""
        from rho_kernel.security import redaction_apply

        if self._in_key_block:
            end = redaction_apply.key_block_end(text)
            if end is None:
                return ""
            self._in_key_block = False
            text = text[end:]
        if redaction_apply.open_key_block(text):
            self._in_key_block = True  # the rest of the block arrives later: swallow it
        return self.redactor._redact(text, self._shapes)


def _held_back(text: str, cut: int) -> int:
    """Where to end what is shown of `text` now (its whole lines end at `cut`): before the
    base64 lines at their end, or before a last line that names a secret whose value may
    follow on the next line."""
    from rho_kernel.security.key_shapes import trailing_body_lines

    held = trailing_body_lines(text[:cut])
    if held < cut:
        return held
    last = text.rfind("\n", 0, cut - 1) + 1
    if _VALUE_NEXT.search(text, last, cut):
        return last
    return cut


# ── rule application ────────────────────────────────────────────────────────

#: A line that ends in a secret's name and separator: its value may be on the next line.
_VALUE_NEXT = re.compile(
    r"(?i:pass(?:word|wd|phrase)|secret|token|credentials?|_pwd|_pass|-pass|key)"
    r"[\"']?[ \t]*(?::|=)[ \t]*\r?\n\Z"
)
#: What a long line keeps held back when part of it is released.
_KEEP = 1024
#: A cut after these would part a secret from what marks it (`Bearer ` + token, `key = `).
_JOINS_NEXT = ("Bearer", "bearer", "Basic", "basic", "=", ":")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~:")


def _safe_cut(text: str, limit: int) -> int:
    """Where to split a long line at or before `limit`: after a blank that parts no secret
    from its marker, else after the last character no token contains, else at `limit`."""
    position = limit
    for _ in range(64):
        blank = max(text.rfind(" ", 0, position), text.rfind("\t", 0, position))
        if blank <= 0:
            break
        before, after = text[:blank].rstrip(), text[blank:].lstrip()
        if before and not before.endswith(_JOINS_NEXT) and not after.startswith(("=", ":")):
            return blank + 1
        position = len(before)
    for index in range(limit - 1, max(limit - STREAM_HOLD, 0), -1):
        if text[index] not in _TOKEN_CHARS:
            return index + 1
    return limit


def _outside_literals(text: str, cut: int) -> int:
    """`cut`, moved back to the start of a secret literal it would split."""
    literals = literal_pattern()
    if literals is None:
        return cut
    for match in literals.finditer(text, max(0, cut - _KEEP), min(len(text), cut + _KEEP)):
        if match.start() < cut < match.end():
            return match.start()
    return cut


def _custom_replacement(match: re.Match[str]) -> str:
    return REDACTED if match.group(0) else ""


def _compile_custom(patterns: Iterable[str], warn: Callable[[str], None]) -> list[re.Pattern[str]]:
    compiled: list[re.Pattern[str]] = []
    for pattern in patterns:
        try:
            regex = re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            warn(f"invalid redaction pattern skipped: {pattern!r}: {exc}")
            continue
        problem = _exponential(pattern)
        if problem:
            warn(f"redaction pattern skipped: {pattern!r}: {problem}")
            continue
        compiled.append(regex)
    return compiled


def _exponential(pattern: str) -> str | None:
    """Why `pattern` could take exponential time (a repetition inside a repetition), or None."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern)
    except Exception:
        return None
    repeats = {_parser.MAX_REPEAT, _parser.MIN_REPEAT, getattr(_parser, "POSSESSIVE_REPEAT", None)}

    def walk(items: Any, inside: bool) -> bool:
        for op, argument in items:
            if op in repeats:
                _low, high, body = argument
                unbounded = high == _parser.MAXREPEAT or high > 1
                if (inside and unbounded) or walk(body, inside or unbounded):
                    return True
            elif op == _parser.BRANCH:  # alternatives that overlap under a repetition backtrack too
                if inside or any(walk(branch, inside) for branch in argument[1]):
                    return True
            elif op in (_parser.SUBPATTERN, _parser.ASSERT, _parser.ASSERT_NOT) and walk(
                argument[-1], inside
            ):
                return True
        return False

    if walk(parsed, False):
        return "a repetition or alternation inside a repetition can take exponential time"
    return None


@functools.cache
def _builtin_rules() -> Callable[..., str]:
    """The built-in rules, loaded (and their patterns compiled) on the first redaction."""
    from rho_kernel.security.redaction_apply import redact_builtin

    return redact_builtin


@functools.lru_cache(maxsize=16)
def _cached(enabled: bool, patterns: tuple[str, ...]) -> Redactor:
    return Redactor(patterns, enabled=enabled)


__all__ = ["REDACTED", "STREAM_HOLD", "Redactor", "StreamRedactor"]
