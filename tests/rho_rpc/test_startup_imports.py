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
runtime.plugins.call_each("rho_startup", runtime=runtime)
runtime.tools.prepare(print)  # what rho does right after `ready`
heavy = sorted(m for m in (*HEAVY, *PACK_MODULES) if m in sys.modules)
print(",".join(heavy) or "-", "memory" in runtime.tools, len(runtime.tools))
"""

#: Libraries a start never needs.
HEAVY = (
    "httpx",
    "httpcore",
    "rich",
    "sqlite3",
    "sqlite_utils",
    "tree_sitter",
    "tree_sitter_language_pack",
    "pathspec",
    "py_mini_racer",
)
#: The packs' implementations, imported when a tool is first called or an extension found:
#: registering the tools, sending their schemas and starting no extension need none.
PACK_MODULES = (
    *(
        f"rho_tools_fs.{name}"
        for name in (
            "read_file",
            "batch_read",
            "write_file",
            "list_dir",
            "edit_file",
            "search_files",
            "find_files",
            "run_command",
            "wait_for",
            "session_summary",
            "hashline",
            "tree_walk",
            "ignore",
        )
    ),
    *(
        f"rho_ext_js.{name}"
        for name in (
            "manager",
            "isolate",
            "host",
            "hostcalls",
            "calls",
            "naming",
            "stacks",
            "rpc",
            "discovery",
        )
    ),
    "rho_memory.rpc",
    *(
        f"rho_tools_rust.{name}"
        for name in (
            "cargo_check",
            "cargo_fix",
            "cargo_test",
            "rustc_explain",
            "rustdoc",
            "crates_io",
        )
    ),
)


@pytest.mark.parametrize(
    ("config", "cargo"), [("", False), ("[memory]\nenabled = true\n", False), ("", True)]
)
def test_heavy_modules_stay_off_the_startup_path(tmp_path: Path, config: str, cargo: bool) -> None:
    (tmp_path / ".rho").mkdir()
    if cargo:  # a Rust project: the Rust tools are registered too
        (tmp_path / "Cargo.toml").write_text('[package]\nname = "demo"\nversion = "0.1.0"\n')
    (tmp_path / ".rho" / "config.toml").write_text(config)
    probe = f"HEAVY = {HEAVY!r}\nPACK_MODULES = {PACK_MODULES!r}\n{PROBE}"
    result = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    # Nothing is listed, every tool is registered (the memory tool only when enabled, the
    # Rust tools only in a Rust project).
    listed, memory, count = result.stdout.split()
    assert (listed, memory) == ("-", str("enabled" in config)), result.stdout
    assert int(count) >= 10 + ("enabled" in config) + 7 * cargo
    assert not (tmp_path / ".rho" / "memory.db").exists()
