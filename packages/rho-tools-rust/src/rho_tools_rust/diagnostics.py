"""Typed compiler diagnostics from cargo's `--message-format=json` output.

cargo writes one JSON object per line on stdout; `"reason": "compiler-message"` lines
carry rustc's diagnostic (level, code, message, spans, children). Build scripts'
`cargo:warning=` lines reach stderr only (`warning: pkg@1.0.0: text`) and are read from
there. Everything else (artifacts, non-JSON lines) is ignored.
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from rho_kernel import scrub_json, scrub_surrogates

#: Summary messages rustc prints after the real ones: no information of their own.
_SUMMARY = re.compile(
    r"^(aborting due to|\d+ warnings? emitted|warning: \d+ warnings? emitted"
    r"|for more information about (this|an) error|some errors have detailed explanations)",
    re.IGNORECASE,
)
_BUILD_SCRIPT_WARNING = re.compile(r"^warning: ([A-Za-z0-9_-]+)@(\S+): (.*)$")
#: Diagnostic levels that are shown (anything else, e.g. `failure-note`, is noise).
_LEVELS = ("error", "warning", "note", "help")


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a source file (1-based line and column), with rustc's label for it."""

    file: str
    line: int
    column: int
    line_end: int
    column_end: int
    label: str | None = None
    is_primary: bool = False


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A proposed edit: replace `span` by `replacement`; `applicability` is rustc's
    confidence (`MachineApplicable`, `MaybeIncorrect`, `HasPlaceholders`, `Unspecified`)."""

    replacement: str
    applicability: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class Note:
    """A `note:` or `help:` attached to a diagnostic (with its primary span, if any)."""

    level: str
    message: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One compiler (or build script) diagnostic.

    `span` is the primary span (None for a message about no particular place); `labels`
    are the other spans with a label; `suggestions` gather the spans of the message and its
    children that carry a replacement. `package` is cargo's package name when known.
    """

    level: str
    message: str
    code: str | None = None
    span: Span | None = None
    labels: tuple[Span, ...] = ()
    notes: tuple[Note, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    package: str | None = None
    source: str = "compiler"

    @property
    def is_error(self) -> bool:
        """Whether this is an error (including an internal compiler error)."""
        return self.level.startswith("error")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the form kept in a tool result's details; tuples as lists)."""
        return {
            "level": self.level,
            "message": self.message,
            "code": self.code,
            "span": _span_dict(self.span),
            "labels": [_span_dict(span) for span in self.labels],
            "notes": [
                {"level": n.level, "message": n.message, "span": _span_dict(n.span)}
                for n in self.notes
            ],
            "suggestions": [
                {
                    "replacement": s.replacement,
                    "applicability": s.applicability,
                    "span": _span_dict(s.span),
                }
                for s in self.suggestions
            ],
            "package": self.package,
            "source": self.source,
        }


def _span_dict(span: Span | None) -> dict[str, Any] | None:
    if span is None:
        return None
    return {
        "file": span.file,
        "line": span.line,
        "column": span.column,
        "line_end": span.line_end,
        "column_end": span.column_end,
        "label": span.label,
        "is_primary": span.is_primary,
    }


@dataclass(slots=True)
class _Paths:
    """Rewrites span paths (relative to the cargo workspace) to project-relative ones."""

    workspace: Path | None
    project: Path | None
    cache: dict[str, str] = field(default_factory=dict)
    inside: dict[str, bool] = field(default_factory=dict)

    def in_project(self, manifest: Any) -> bool:
        """Whether a message's crate (its `manifest_path`) lives in the project."""
        if self.project is None or not isinstance(manifest, str):
            return True
        known = self.inside.get(manifest)
        if known is None:
            known = self.inside[manifest] = Path(manifest).is_relative_to(self.project)
        return known

    def fix(self, name: str) -> str:
        if self.workspace is None or self.project is None:
            return name
        if (known := self.cache.get(name)) is None:
            known = self.cache[name] = project_relative(name, self.workspace, self.project)
        return known


def project_relative(name: str, workspace: Path, project: Path) -> str:
    """A path as cargo or rustc print it (relative to the `workspace` root, or absolute),
    relative to the `project` root when it lies inside (else absolute)."""
    full = Path(name) if Path(name).is_absolute() else workspace / name
    try:
        return full.relative_to(project).as_posix()
    except ValueError:
        return str(full)


def _span(raw: dict[str, Any], paths: _Paths) -> Span:
    get = raw.get
    return Span(
        paths.fix(str(get("file_name", ""))),
        int(get("line_start") or 0),
        int(get("column_start") or 0),
        int(get("line_end") or 0),
        int(get("column_end") or 0),
        _text(get("label")),
        bool(get("is_primary")),
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [item for item in items or () if isinstance(item, dict)]


def _primary(spans: list[dict[str, Any]]) -> dict[str, Any] | None:
    for raw in spans:
        if raw.get("is_primary"):
            return raw
    return None


def _suggestions(spans: list[dict[str, Any]], paths: _Paths) -> list[Suggestion]:
    return [
        Suggestion(str(replacement), _text(raw.get("suggestion_applicability")), _span(raw, paths))
        for raw in spans
        if (replacement := raw.get("suggested_replacement")) is not None
    ]


def _from_message(message: dict[str, Any], package: str | None, paths: _Paths) -> Diagnostic:
    spans = _dicts(message.get("spans"))
    primary = _primary(spans)
    labels = tuple(_span(raw, paths) for raw in spans if raw is not primary and raw.get("label"))
    notes: list[Note] = []
    suggestions = _suggestions(spans, paths)
    for child in _dicts(message.get("children")):
        child_spans = _dicts(child.get("spans"))
        first = _primary(child_spans)
        notes.append(
            Note(
                str(child.get("level", "note")),
                str(child.get("message", "")),
                _span(first, paths) if first is not None else None,
            )
        )
        if child_spans:
            suggestions += _suggestions(child_spans, paths)
    code = message.get("code")
    return Diagnostic(
        level=str(message.get("level", "")),
        message=str(message.get("message", "")),
        code=str(code["code"]) if isinstance(code, dict) and code.get("code") else None,
        span=_span(primary, paths) if primary is not None else None,
        labels=labels,
        notes=tuple(notes),
        suggestions=tuple(suggestions),
        package=package,
    )


def _package_name(package_id: Any) -> str | None:
    """`path+file:///x/demo#demo@0.1.0` or `demo 0.1.0 (path+file:///x)` → `demo`."""
    if not isinstance(package_id, str):
        return None
    if "#" in package_id:
        tail = package_id.rsplit("#", 1)[1]
        return tail.split("@", 1)[0] if "@" in tail else package_id.rsplit("/", 1)[-1].split("#")[0]
    return package_id.split(" ", 1)[0] or None


def _is_noise(message: dict[str, Any]) -> bool:
    level = str(message.get("level", ""))
    if not level.startswith(_LEVELS):
        return True
    return not message.get("spans") and bool(_SUMMARY.match(str(message.get("message", ""))))


def _decode(line: str) -> Any:
    """One JSON line, or None when it is not JSON.

    pydantic-core's parser is about twice as fast as the standard one on cargo's long
    lines; it refuses escaped lone surrogates (which rustc can print for a path or a
    string literal), so such a line is decoded by `json` and its strings scrubbed.
    """
    try:
        return from_json(line)
    except ValueError:
        pass
    try:
        return scrub_json(json.loads(line))
    except (ValueError, RecursionError):
        return None


def parse_messages(
    stdout: str, *, project_root: Path | None = None, workspace_root: Path | None = None
) -> list[Diagnostic]:
    """The diagnostics in cargo's JSON `stdout`, deduplicated, in cargo's order.

    With `project_root`, messages about crates whose manifest lies outside it (dependency
    noise) are dropped, and, with `workspace_root` (where cargo ran rustc), span paths
    become relative to the project root. Lines that are not JSON compiler messages are
    skipped; summary messages (`aborting due to …`, `N warnings emitted`) are dropped.
    """
    with collector_paused():
        return _parse(stdout, _Paths(workspace_root, project_root))


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Hold back Python's cyclic garbage collector: decoding makes tens of thousands of
    containers, each batch of which would start a collection walking every object rho
    holds, while the trees it makes have no cycles to collect."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _parse(stdout: str, paths: _Paths) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    seen: set[Any] = set()
    for line in stdout.split("\n"):
        if '"compiler-message"' not in line or line in seen:
            continue
        seen.add(line)
        record = _decode(line)
        if not isinstance(record, dict) or record.get("reason") != "compiler-message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or _is_noise(message):
            continue
        # The same diagnostic comes once per target (lib, test): rustc's rendering of it,
        # with its package, names it (hashing one string beats hashing the whole tree).
        rendered = message.get("rendered")
        key = (str(record.get("package_id")), rendered) if isinstance(rendered, str) else None
        if key in seen or not paths.in_project(record.get("manifest_path")):
            continue
        try:
            diagnostic = _from_message(message, _package_name(record.get("package_id")), paths)
        except (TypeError, ValueError, KeyError):
            continue
        seen_as = diagnostic if key is None else key  # without a rendering: all of it
        if seen_as not in seen:
            seen.add(seen_as)
            found.append(diagnostic)
    return found


def details_of(diagnostics: list[Diagnostic]) -> list[dict[str, Any]]:
    """The diagnostics as JSON-ready dicts (a tool result's details)."""
    with collector_paused():
        return [diagnostic.to_dict() for diagnostic in diagnostics]


def parse_build_script_warnings(stderr: str) -> list[Diagnostic]:
    """`cargo:warning=` lines of build scripts (cargo prints them on stderr), deduplicated."""
    found: dict[Diagnostic, None] = {}
    for line in stderr.splitlines():
        match = _BUILD_SCRIPT_WARNING.match(line.rstrip())
        if match is not None:
            package, _, text = match.groups()
            found.setdefault(
                Diagnostic(
                    level="warning",
                    message=f"build script of {package}: {scrub_surrogates(text)}",
                    package=package,
                    source="build-script",
                )
            )
    return list(found)


__all__ = [
    "Diagnostic",
    "Note",
    "Span",
    "Suggestion",
    "collector_paused",
    "details_of",
    "parse_build_script_warnings",
    "parse_messages",
    "project_relative",
]
