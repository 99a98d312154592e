"""What the client sees while cargo runs: its JSON lines rendered as people read them.

cargo's `--message-format=json` and libtest's `--format json` write one JSON object per
line on stdout. Live output (`tool/output`) shows a compiler message as the model reads it
(`file:line:col level[code]: message`, then its help and notes), a test event as libtest's
own human output does (`test name ... ok`), and hides cargo's other records (artifacts,
build scripts, the build's end). Anything else, and stderr, is shown as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_tools_rust.crate import workspace_root
from rho_tools_rust.diagnostics import parse_messages
from rho_tools_rust.render import diagnostic_lines

#: Distinct messages remembered to show each once (beyond, repeats are shown again).
MAX_REMEMBERED = 10_000


class CargoLiveLines:
    """A live-output line filter (see `ToolContext.run_process`'s `live_filter`) for cargo
    run on `crate` for the project at `project`: diagnostics of the project's crates
    rendered, each once; test events in libtest's words; cargo's other JSON hidden."""

    def __init__(self, project: Path, crate: Path) -> None:
        self.project = project
        self.crate = crate
        self._workspace: Path | None = None
        # Hashes, not the lines: a line may be a megabyte, and only whether it was seen counts.
        self._seen: set[int] = set()

    def __call__(self, stream: str, line: str) -> str | None:
        """The text to show for one whole line of `stream` (None: nothing)."""
        if stream != "stdout" or not line.startswith("{"):
            return line
        if '"compiler-message"' in line:
            return self._diagnostic(line)
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return line  # not JSON after all: a program's own output
        if not isinstance(record, dict):
            return line
        if record.get("type") in ("suite", "test"):
            return libtest_line(record)
        return None if "reason" in record else line

    def _diagnostic(self, line: str) -> str | None:
        if hash(line) in self._seen:
            return None
        if self._workspace is None:  # where span paths are relative to, once needed
            self._workspace = workspace_root(self.crate)
        found = parse_messages(line, project_root=self.project, workspace_root=self._workspace)
        if not found or hash(found[0]) in self._seen:
            return None
        if len(self._seen) < MAX_REMEMBERED:
            self._seen.update((hash(line), hash(found[0])))
        return "\n".join(diagnostic_lines(found[0]))


def libtest_line(event: dict[str, Any]) -> str | None:
    """libtest's human line for one JSON event: `running N tests`, `test NAME ... ok`,
    `test result: FAILED. P passed; F failed; I ignored`; None for the others."""
    kind, outcome = event.get("type"), event.get("event")
    if kind == "suite" and outcome == "started":
        count = event.get("test_count")
        return f"running {count} test{'' if count == 1 else 's'}"
    if kind == "suite" and outcome in ("ok", "failed"):
        counts = "; ".join(
            f"{event.get(key, 0)} {key.replace('_', ' ')}"
            for key in ("passed", "failed", "ignored", "filtered_out")
        )
        return f"test result: {'ok' if outcome == 'ok' else 'FAILED'}. {counts}"
    if kind == "test" and outcome in ("ok", "failed", "ignored", "timeout"):
        shown = {"ok": "ok", "failed": "FAILED", "ignored": "ignored", "timeout": "TIMEOUT"}
        return f"test {event.get('name', '?')} ... {shown[str(outcome)]}"
    return None


__all__ = ["MAX_REMEMBERED", "CargoLiveLines", "libtest_line"]
