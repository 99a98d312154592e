"""cargo_check through rho's tool against `cargo check` alone, on the same small crate with a
type error and a warning (warm builds: the difference is what rho adds).

Run: python3 -m uv run python bench/rust_check.py [runs]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_rust.cargo_check import cargo_check

MANIFEST = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'
SOURCE = 'fn main() {\n    let unused = 1;\n    let x: u32 = "a";\n    println!("{x}");\n}\n'


def _crate(folder: Path) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "Cargo.toml").write_text(MANIFEST)
    (folder / "src" / "main.rs").write_text(SOURCE)
    return folder


def _cargo_alone(crate: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        ["cargo", "check", "--message-format=json"], cwd=crate, capture_output=True, check=False
    )
    return time.perf_counter() - started


async def _through_rho(crate: Path) -> float:
    ctx = ToolContext(root=SandboxRoot(crate), config=RhoConfig(), cancel=CancelToken())
    started = time.perf_counter()
    result = await cargo_check.execute({}, ctx)
    elapsed = time.perf_counter() - started
    assert result.output.startswith("cargo_check: 1 error"), result.output
    return elapsed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as tmp:
        crate = _crate(Path(tmp) / "crate")
        os.environ["CARGO_TARGET_DIR"] = str(crate / "target")
        _cargo_alone(crate)  # warm the build cache
        alone = [_cargo_alone(crate) for _ in range(runs)]
        tool = [asyncio.run(_through_rho(crate)) for _ in range(runs)]
    a, t = statistics.median(alone) * 1000, statistics.median(tool) * 1000
    print(f"cargo check alone       p50 {a:7.1f} ms")
    print(
        f"cargo_check through rho p50 {t:7.1f} ms  ({t - a:+.1f} ms: process runner, parsing, rendering)"
    )


if __name__ == "__main__":
    main()
