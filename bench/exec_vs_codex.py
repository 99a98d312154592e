"""Benchmark: `rho exec "…"` beside `codex exec "…"`, from exec to exit, against the same
instant model (a scripted server on 127.0.0.1 answering at once with one recorded Responses
stream: the model says one sentence and calls no tool).

Run: uv run python bench/exec_vs_codex.py [--runs N] [--codex PATH]

codex is not installed by this script: install it yourself where you like, e.g.
`npm install --prefix /tmp/codex @openai/codex`, and pass `--codex
/tmp/codex/node_modules/.bin/codex` (without it the script looks for `codex` on PATH, and
times rho alone when there is none). codex speaks only the Responses API to a custom
provider (`wire_api = "chat"` is refused since 2025), so both are pointed at the server's
`/v1/responses` (rho through a `[[providers]]` entry with `api = "responses"`). Both run in
a throwaway git repository with a HOME (and CODEX_HOME) of their own; rho keeps its session
in memory (`--ephemeral`), codex writes its own session files as it always does. Medians of
`N` runs (default 10) are printed, wall-clock, with their spread.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_start import compile_workspace

from rho_kernel.testing import ScriptedServer, fixture_reply

RHO = str(Path(sys.executable).with_name("rho"))
STREAM = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "streams"
    / "responses--openai-gpt-4o-text.jsonl"
)
PROMPT = "say hi"


def rho_run(project: Path, home: Path, server: ScriptedServer) -> float:
    """One `rho exec` from exec to exit; seconds."""
    server.add(fixture_reply(STREAM))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RHO_", "OPENAI"))}
    env["HOME"] = str(home)
    started = time.perf_counter()
    done = subprocess.run(
        [RHO, "exec", "--ephemeral", "-m", "scripted-model", PROMPT],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0 and "Paris" in done.stdout, done.stderr
    return elapsed


def codex_run(codex: str, project: Path, home: Path, server: ScriptedServer) -> float:
    """One `codex exec` from exec to exit; seconds."""
    server.add(fixture_reply(STREAM))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX", "OPENAI"))}
    env.update({"HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    started = time.perf_counter()
    done = subprocess.run(
        [codex, "exec", "--skip-git-repo-check", PROMPT],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0 and "Paris" in done.stdout, done.stderr
    return elapsed


def configure(home: Path, server: ScriptedServer) -> None:
    """rho's and codex's config: the scripted server's Responses endpoint as the provider."""
    (home / ".rho").mkdir(parents=True)
    (home / ".rho" / "config.toml").write_text(
        f'[[providers]]\nname = "scripted"\nendpoint = "{server.url}/v1/responses"\n'
        'api = "responses"\n'
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        'model = "scripted-model"\nmodel_provider = "scripted"\n'
        f'[model_providers.scripted]\nname = "scripted"\nbase_url = "{server.url}/v1"\n'
        'wire_api = "responses"\n'
    )


def summary(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return (
        f"{name}: median {statistics.median(ms):.0f} ms "
        f"(min {ms[0]:.0f}, max {ms[-1]:.0f}, {len(ms)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--codex", default=shutil.which("codex"), help="the codex command")
    args = parser.parse_args()
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer() as server:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        configure(home, server)
        rho_run(project, home, server)  # warm the caches
        rho_times = [rho_run(project, home, server) for _ in range(args.runs)]
        print(summary("rho exec", rho_times))
        if not args.codex:
            print("codex exec: not timed (no codex: pass --codex PATH)")
            return
        codex_run(args.codex, project, home, server)
        codex_times = [codex_run(args.codex, project, home, server) for _ in range(args.runs)]
        print(summary("codex exec", codex_times))


if __name__ == "__main__":
    main()
