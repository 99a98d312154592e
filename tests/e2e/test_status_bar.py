"""The status bar through the real `rho` process: drawn after each turn when stderr is a
terminal (a pseudo-terminal here), absent with rich never imported when it is a pipe."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

from rho_process import RHO, RhoProcess, rho_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply


def _env(home: Path) -> dict[str, str]:
    return rho_env(home, PYTHONUNBUFFERED="1")


def _read_available(fd: int, until: str, timeout: float = 20) -> str:
    data = b""
    deadline = time.monotonic() + timeout
    while until.encode() not in data and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            data += chunk
    return data.decode("utf-8", "replace")


def test_a_terminal_gets_a_status_bar_after_each_turn(
    server: ScriptedServer, project: Path, home: Path
) -> None:
    usage = [
        {"prompt_tokens": 400, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 0}},
        {"prompt_tokens": 600, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 570}},
    ]  # fmt: skip
    server.add(text_reply("one", usage=usage[0]), text_reply("two", usage=usage[1]))
    cache = ["cache 0% (last turn 0%)", "cache 57% (last turn 95%)"]
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [RHO, "--endpoint", server.chat_url, "-m", "scripted-model", "--token-budget", "16000"],
        cwd=project,
        env=_env(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        assert b'"ready"' in proc.stdout.readline()
        for number, message in enumerate(["first", "second"], start=1):
            proc.stdin.write(
                (
                    f'{{"jsonrpc":"2.0","id":{number},"method":"prompt",'
                    f'"params":{{"message":"{message}"}}}}\n'
                ).encode()
            )
            proc.stdin.flush()
            while b'"id":%d' % number not in proc.stdout.readline():
                pass
            text = _read_available(master, cache[number - 1])  # the end of the bar
            [bar] = [line for line in text.splitlines() if "tokens (" in line]
            assert bar.startswith("[") and ("█" in bar or "░" in bar)
            assert "] path " in bar and "/16k tokens (" in bar and "remaining │" in bar
            assert "│ sent " in bar  # what the model receives, labelled apart from the path
            # The prompt cache's hit rate as the provider reported it, for the session and
            # the turn: (0 + 570) ÷ (400 + 600) and 570 ÷ 600.
            assert bar.rstrip().endswith(f"{1 + 2 * number} messages │ {cache[number - 1]}")
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def test_a_pipe_gets_no_status_bar_and_rich_stays_unimported(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    server.add(text_reply("one"))
    rho: RhoProcess = start_scripted(start_rho, server, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert rho.call("prompt", {"message": "hello"})["result"]["reply"] == "one"
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert "import time:" in stderr  # the probe works …
    imported = {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line}
    assert "rich" not in imported and "rich.console" not in imported  # … and saw no rich
    assert "tokens (" not in stderr
