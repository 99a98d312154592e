"""Benchmark: parse and render the JSON of a cargo check with 1,000 diagnostics.

Run: uv run python bench/rust_diagnostics.py [count]   (default 1000)

A crate with a type error and an unused variable is checked once with the real cargo
(`--message-format=json`); its two compiler messages are the templates. `count` varied
messages (different files, lines, names and levels, and the rendering rustc gives
each, every one distinct, so none is deduplicated away) are synthesised from them, plus one copy of every tenth (cargo repeats
messages for lib and test targets) and non-JSON lines. Timed: `parse_messages` on the
whole stdout (with project-relative paths) + `render` + the details (`details_of`). Prints
the median, 90th percentile and best of 50 runs. The target is 50 ms.
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_tools_rust.diagnostics import details_of, parse_messages
from rho_tools_rust.render import render

SOURCE = 'fn main() {\n    let unused = 5;\n    let x: u32 = "a";\n    println!("{x}");\n}\n'
RUNS = 50
MANIFEST = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'


def capture(folder: Path) -> list[dict[str, object]]:
    """The real compiler-message records of `cargo check` on a small broken crate."""
    (folder / "src").mkdir(parents=True)
    (folder / "Cargo.toml").write_text(MANIFEST)
    (folder / "src" / "main.rs").write_text(SOURCE)
    env = {**os.environ, "CARGO_TARGET_DIR": str(folder / "target")}
    done = subprocess.run(
        ["cargo", "check", "--message-format=json"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    found = [r for r in records if r.get("reason") == "compiler-message"]
    return [r for r in found if r["message"]["spans"]]


def vary(template: dict[str, object], index: int) -> dict[str, object]:
    """A distinct message from `template`: its own file, line, name and level."""
    record = copy.deepcopy(template)
    message = record["message"]
    assert isinstance(message, dict)
    original = message["message"]
    message["message"] = f"{original} #{index}"
    message["level"] = "error" if index % 5 == 0 else "warning"
    for span in message["spans"]:
        span["file_name"] = f"src/module_{index % 40}.rs"
        span["line_start"] = span["line_end"] = 1 + index
    # rustc's rendering names the message and its place, as the real one does
    rendered = str(message["rendered"]).replace(original, message["message"], 1)
    message["rendered"] = rendered.replace("src/main.rs:", f"src/module_{index % 40}.rs:", 1)
    return record


def synthesise(templates: list[dict[str, object]], count: int) -> str:
    lines = ["   Compiling demo v0.1.0"]
    for index in range(count):
        line = json.dumps(vary(templates[index % len(templates)], index))
        lines.append(line)
        if index % 10 == 0:
            lines.append(line)
    lines.append('{"reason":"build-finished","success":false}')
    return "\n".join(lines)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        templates = capture(root / "crate")
        if not templates:
            sys.exit("cargo produced no diagnostics (is cargo installed?)")
        stdout = synthesise(templates, count)
        times = []
        for _ in range(RUNS):
            diagnostics = details = []  # the last run's objects are freed before the clock
            started = time.perf_counter()
            diagnostics = parse_messages(stdout, project_root=root, workspace_root=root / "crate")
            text = render("cargo_check", diagnostics)
            details = details_of(diagnostics)
            times.append((time.perf_counter() - started) * 1000)
    assert len(diagnostics) == count and len(details) == count, len(diagnostics)
    print(f"{count} diagnostics, {len(stdout) / 1e6:.1f} MB of JSON; {text.splitlines()[0]}")
    times.sort()
    print(
        f"parse+render+details over {RUNS} runs: median {statistics.median(times):.1f} ms, "
        f"p90 {times[RUNS * 9 // 10]:.1f} ms, best {times[0]:.1f} ms"
    )


if __name__ == "__main__":
    main()
