"""Reading what libtest (the Rust test harness) reports: its JSON events or its text.

`cargo test` runs one test binary per target (unit tests, each integration test, doc
tests); both readers sum over all of them. Counts come from the per-test lines, so a binary
that crashes before its summary still counts what it ran.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

#: Lines and characters kept of one failure's message.
MESSAGE_LINES = 12
MESSAGE_CHARS = 1000

_PANIC = re.compile(r"^thread '(?P<thread>.*?)'(?: \(\d+\))? panicked at (?P<rest>.*)$")
_OLD_PANIC = re.compile(r"^'(?P<message>.*)', (?P<location>\S+:\d+:\d+)$")
_TEST_LINE = re.compile(r"^test (?P<name>.+?) \.\.\. (?P<outcome>ok|FAILED|ignored)\b")
_SECTION = re.compile(r"^---- (?P<name>.+) (?:stdout|stderr) ----$")
_RESULT = re.compile(r"^test result: ")
_FILTERED = re.compile(r"(\d+) filtered out")


@dataclass(slots=True)
class TestFailure:
    """One failed test: its name, panic message and where it panicked (if known)."""

    name: str
    message: str
    location: str | None = None


@dataclass(slots=True)
class TestReport:
    """What a test run reported, summed over its test binaries; `source` is "json" or "text"."""

    source: str
    passed: int = 0
    failed: int = 0
    ignored: int = 0
    filtered_out: int = 0
    failures: list[TestFailure] = field(default_factory=list)

    @property
    def ran_anything(self) -> bool:
        """Whether any test was reported at all (run, ignored or filtered out)."""
        return bool(self.passed or self.failed or self.ignored or self.filtered_out)

    def as_details(self) -> dict[str, Any]:
        """The report as plain data for a tool result's details."""
        return {
            "source": self.source,
            "passed": self.passed,
            "failed": self.failed,
            "ignored": self.ignored,
            "filtered_out": self.filtered_out,
            "failures": [
                {"name": f.name, "message": f.message, "location": f.location}
                for f in self.failures
            ],
        }


def _cap(lines: list[str]) -> str:
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    cut = len(lines) > MESSAGE_LINES
    text = "\n".join(lines[:MESSAGE_LINES])
    if len(text) > MESSAGE_CHARS:
        text, cut = text[:MESSAGE_CHARS], True
    return text + ("\n…" if cut else "")


def panic_message(output: str) -> tuple[str, str | None]:
    """The panic message and location in a failed test's captured output; without a panic
    (a test returning `Err`, a crash), the end of the output and None."""
    lines = output.splitlines()
    for index, line in enumerate(lines):
        match = _PANIC.match(line)
        if match is None:
            continue
        rest = match.group("rest")
        old = _OLD_PANIC.match(rest)
        if old is not None:  # before Rust 1.73: panicked at 'message', file:line:col
            return _cap(old.group("message").split("\\n")), old.group("location")
        message: list[str] = []
        for following in lines[index + 1 :]:
            if following.startswith(("note: ", "stack backtrace:")):
                break
            message.append(following)
        return _cap(message), rest.rstrip(":")
    return _cap(lines[-MESSAGE_LINES:]), None


def parse_json(stdout: str) -> TestReport | None:
    """The report from libtest's JSON events (`--format json`) in `stdout`, skipping lines
    that are not events; None when there is no event at all."""
    report = TestReport("json")
    seen = False
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or event.get("type") not in ("suite", "test"):
            continue
        seen = True
        kind, outcome = event.get("type"), event.get("event")
        if kind == "suite" and outcome in ("ok", "failed"):
            report.filtered_out += _count(event.get("filtered_out"))
        elif kind == "test" and outcome == "ok":
            report.passed += 1
        elif kind == "test" and outcome == "ignored":
            report.ignored += 1
        elif kind == "test" and outcome == "failed":
            report.failed += 1
            report.failures.append(_json_failure(event))
    return report if seen else None


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _json_failure(event: dict[str, Any]) -> TestFailure:
    stdout = event.get("stdout")
    message, location = panic_message(stdout if isinstance(stdout, str) else "")
    note = event.get("message")
    if isinstance(note, str) and note.strip():
        message = f"{message}\n{note.strip()}" if message else note.strip()
    return TestFailure(str(event.get("name", "?")), message, location)


def parse_text(stdout: str) -> TestReport | None:
    """The report from libtest's human output in `stdout`; None when it has none."""
    report = TestReport("text")
    seen = False
    outputs: dict[str, list[str]] = {}
    failed: list[str] = []
    section: list[str] | None = None
    in_failures = False
    for line in stdout.splitlines():
        if _RESULT.match(line):
            seen, in_failures, section = True, False, None
            if match := _FILTERED.search(line):
                report.filtered_out += int(match.group(1))
        elif line == "failures:":
            in_failures, section = True, None
        elif in_failures:
            if match := _SECTION.match(line):
                section = outputs.setdefault(match.group("name"), [])
            elif section is not None:
                section.append(line)
        elif match := _TEST_LINE.match(line):
            seen = True
            outcome = match.group("outcome")
            if outcome == "ok":
                report.passed += 1
            elif outcome == "ignored":
                report.ignored += 1
            else:
                report.failed += 1
                failed.append(match.group("name"))
    for name in failed:
        message, location = panic_message("\n".join(outputs.get(name, [])))
        report.failures.append(TestFailure(name, message, location))
    return report if seen else None


__all__ = ["TestFailure", "TestReport", "panic_message", "parse_json", "parse_text"]
