"""A large, realistic session file for the session benchmarks (not a benchmark itself).

`write_session(path, entries)` writes a session of `entries` entries the way rho would:
a system message, then turns of a user message, assistant tool calls with their results
(a few kilobytes each, like file reads) and a closing assistant reply, with a label, a
resolution change and an abandoned branch now and then.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_TOOLS = ("read_file", "search_files", "edit_file", "run_command", "list_dir")


def _entry(entry_id: str, parent: str | None, payload: Any, resolution: Any = "Full") -> str:
    return json.dumps(
        {
            "type": "Entry",
            "id": entry_id,
            "parent_id": parent,
            "timestamp": {"secs_since_epoch": 1_700_000_000, "nanos_since_epoch": 0},
            "resolution": resolution,
            "payload": payload,
        },
        separators=(",", ":"),
    )


def _message(role: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"Message": {"role": role, "content": content, **extra}}


def session_lines(entries: int, seed: int = 7) -> list[str]:
    """The lines (header first) of a session holding `entries` entries."""
    rng = random.Random(seed)
    lines = [
        json.dumps(
            {
                "type": "Header",
                "id": "b0b0b0b0",
                "version": 2,
                "created_at_secs": 1_700_000_000,
                "cwd": "/project",
                "parent_session": None,
            }
        )
    ]
    count = 0
    parent: str | None = None

    def add(payload: Any, resolution: Any = "Full", under: str | None = None) -> str:
        nonlocal count, parent
        entry_id = f"{count:08x}"
        lines.append(_entry(entry_id, parent if under is None else under, payload, resolution))
        count += 1
        parent = entry_id
        return entry_id

    add(_message("system", "You are rho, a coding agent. " * 40))
    while count < entries:
        turn_start = add(_message("user", f"Please work on task {count}: " + "details " * 20))
        for _ in range(rng.randint(1, 4)):
            if count >= entries - 2:
                break
            tool = rng.choice(_TOOLS)
            call_id = f"call_{count}"
            arguments = json.dumps({"path": f"src/module_{rng.randint(0, 300)}.py"})
            add(
                _message(
                    "assistant",
                    "",
                    tool_calls=[
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": tool, "arguments": arguments},
                        }
                    ],
                    finish_reason="tool_calls",
                )
            )
            body = "".join(
                f"{n}: line of source code number {n}\n" for n in range(rng.randint(20, 120))
            )
            add(_message("tool", body, tool_call_id=call_id, is_error=False))
        if count < entries:
            add(_message("assistant", "Done: " + "summary words " * 15, finish_reason="stop"))
        if count % 500 < 6 and count < entries:
            add({"Label": {"target_id": turn_start, "label": f"checkpoint {count}"}}, "Attached")
        if count % 997 < 6 and count < entries:
            lines.append(
                json.dumps(
                    {
                        "type": "Resolution",
                        "entry": turn_start,
                        "resolution": {"Summarized": {"summary": "earlier task"}},
                        "cursor": None,
                    }
                )
            )
    return lines


def write_session(path: Path, entries: int) -> Path:
    """Write a session of `entries` entries at `path` (folders created); returns `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(session_lines(entries)) + "\n", encoding="utf-8")
    return path
