"""Nothing heavy is imported on the way to `ready`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import sys
from pathlib import Path
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_rpc.app import add_discover, collect_methods
root = Path(sys.argv[1])
runtime = Runtime.build(RuntimeOptions(cwd=root, root=root, home=root, ephemeral=True,
                                       plugin_modules=(("rho-rpc", "rho_rpc.plugin"),)))
add_discover(collect_methods(runtime))
heavy = sorted(m for m in ("httpx", "httpcore", "rich", "sqlite3", "sqlite_utils", "tree_sitter", "tree_sitter_language_pack", "pathspec", "py_mini_racer") if m in sys.modules)
print(",".join(heavy), "memory" in runtime.tools)
"""


@pytest.mark.parametrize("config", ["", "[memory]\nenabled = true\n"])
def test_heavy_modules_stay_off_the_startup_path(tmp_path: Path, config: str) -> None:
    (tmp_path / ".rho").mkdir()
    (tmp_path / ".rho" / "config.toml").write_text(config)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str("enabled" in config)]
    assert not (tmp_path / ".rho" / "memory.db").exists()
