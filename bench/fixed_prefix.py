"""Benchmark: the fixed prefix of a model request — the system prompt and the tool definitions,
everything the first request of a plain project carries besides the user's words.

The real `rho` (rho's own plugins, no config, an empty home) starts in a plain project (a git
repository without a Cargo.toml) against a scripted server on 127.0.0.1, is sent one prompt,
and the first request the server receives is measured: the system message's UTF-8 bytes, and
each entry of its `tools` array as the request carries it (compact JSON, as rho sends it).
The project's path, which the system prompt names, is counted as `/home/user/project`
(`SHOWN_ROOT`), so the figures do not depend on where the temporary project lies.
Also printed: `getState.toolDefinitions.tokens`, rho's own estimate of the definitions.

`BEFORE` holds the figures measured before the prompts were shortened (13,654 bytes in all);
each line shows before → after.

Run: uv run python bench/fixed_prefix.py [--json]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rho_kernel.testing import ScriptedServer, text_reply

RHO = str(Path(sys.executable).with_name("rho"))
#: The project path counted in the system prompt, whatever the real one is.
SHOWN_ROOT = "/home/user/project"
#: The target for the whole fixed prefix (≤ 9.5 KB).
TARGET = 9500

#: Bytes before the prompts were shortened (the same measure, 13,654 in all).
BEFORE: dict[str, int] = {
    "system prompt": 1010,
    "read_file": 1714,
    "batch_read": 784,
    "write_file": 749,
    "list_dir": 764,
    "edit_file": 1846,
    "search_files": 1705,
    "find_files": 1010,
    "run_command": 2114,
    "wait_for": 1438,
    "session_summary": 520,
}
#: rho's own estimate of the tool definitions before (`getState.toolDefinitions.tokens`).
BEFORE_TOKENS = 5284


def _env(home: Path) -> dict[str, str]:
    """This environment without rho's and the providers' variables; rho's own plugins."""
    from rho_rpc.distributions import RHO_DISTRIBUTIONS

    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("RHO_", "OPENAI", "OPENROUTER"))
    }
    env.update({"HOME": str(home), "RHO_PLUGINS": ",".join(sorted(RHO_DISTRIBUTIONS))})
    return env


def _call(process: subprocess.Popen[bytes], request_id: int, method: str) -> dict[str, Any]:
    """Send a request and read lines up to its response."""
    assert process.stdin is not None and process.stdout is not None
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if method == "prompt":
        message["params"] = {"message": "hi"}
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()
    while True:
        line = process.stdout.readline()
        assert line, "rho ended early"
        answer = json.loads(line)
        if answer.get("id") == request_id:
            return dict(answer)


def first_request() -> tuple[dict[str, Any], str, int]:
    """The first request's body, the project path it names, and rho's token estimate."""
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer([text_reply("ok")]) as server:
        project, home = Path(tmp, "project").resolve(), Path(tmp, "home")
        (project / ".git").mkdir(parents=True)
        home.mkdir()
        args = ["--ephemeral", "--endpoint", server.chat_url, "-m", "scripted-model"]
        process = subprocess.Popen(
            [RHO, *args],
            cwd=project,
            env=_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert process.stdout is not None
            assert b'"ready"' in process.stdout.readline()
            tokens = _call(process, 1, "getState")["result"]["toolDefinitions"]["tokens"]
            _call(process, 2, "prompt")
            body = server.wait_for_requests(1)[0].json
        finally:
            process.kill()
            process.wait()
    return body, str(project), tokens


def measure(body: dict[str, Any], root: str) -> dict[str, int]:
    """Bytes of the system prompt (the project path counted as `SHOWN_ROOT`) and of each
    tool definition as the request carries it, by name."""
    system = body["messages"][0]
    assert system["role"] == "system"
    text = system["content"].replace(root, SHOWN_ROOT)
    sizes = {"system prompt": len(text.encode())}
    for entry in body.get("tools", []):
        encoded = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        sizes[entry["function"]["name"]] = len(encoded.encode())
    return sizes


def main() -> None:
    body, root, tokens = first_request()
    sizes = measure(body, root)
    if "--json" in sys.argv[1:]:
        print(json.dumps({"bytes": sizes, "tokens": tokens}, indent=1))
        return
    print("fixed prefix of the first request, plain project (bytes: before → after)")
    for name in dict.fromkeys([*BEFORE, *sizes]):
        before, after = BEFORE.get(name), sizes.get(name)
        shown_before = f"{before:6,}" if before is not None else "     —"
        shown_after = f"{after:6,}" if after is not None else "     — (not offered)"
        change = f"  ({after - before:+,})" if before is not None and after is not None else ""
        print(f"  {name:<16} {shown_before} → {shown_after}{change}")
    tools_before = sum(v for k, v in BEFORE.items() if k != "system prompt")
    tools_after = sum(v for k, v in sizes.items() if k != "system prompt")
    total_before, total_after = sum(BEFORE.values()), sum(sizes.values())
    print(f"  {'tools':<16} {tools_before:6,} → {tools_after:6,} ({len(sizes) - 1} tools)")
    print(
        f"  {'total':<16} {total_before:6,} → {total_after:6,}  "
        f"(target ≤ {TARGET:,}: {'met' if total_after <= TARGET else 'NOT met'})"
    )
    print(f"rho's estimate of the tool definitions: {BEFORE_TOKENS:,} → {tokens:,} tokens")


if __name__ == "__main__":
    main()
