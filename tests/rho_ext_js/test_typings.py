"""`rho.d.ts` ships in the package, parses as TypeScript, and declares the book's API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tree_sitter_language_pack import get_parser

from rho_ext_js.typings import rho_dts_text


def _errors(node: object) -> list[tuple[int, int]]:
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:  # type: ignore[attr-defined]
            found.append(current.start_point)  # type: ignore[attr-defined]
        stack.extend(current.children)  # type: ignore[attr-defined]
    return found


def test_the_declarations_parse_as_typescript_without_errors() -> None:
    text = rho_dts_text()
    tree = get_parser("typescript").parse(text.encode())
    assert _errors(tree.root_node) == []


def test_they_declare_the_host_api_and_the_manifest() -> None:
    text = rho_dts_text()
    for name in ("readFile", "writeFile", "runCommand", "getCwd", "getModel", "log("):
        assert name in text
    for name in ("interface RhoExtension", "interface RhoTool", "onToolCall", 'action: "block"'):
        assert name in text
    assert "readFile(path: string): Promise<string>" in text


def test_the_module_prints_and_copies_the_file(tmp_path: Path) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "rho_ext_js.typings"], capture_output=True, text=True, check=True
    )
    assert Path(printed.stdout.strip()).read_text() == rho_dts_text()
    subprocess.run(
        [sys.executable, "-m", "rho_ext_js.typings", "--copy", str(tmp_path / "types")],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "types" / "rho.d.ts").read_text() == rho_dts_text()


def test_copy_without_a_folder_goes_to_the_users_types_folder(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "rho_ext_js.typings", "--copy"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    target = tmp_path / ".rho" / "types" / "rho.d.ts"
    assert done.stdout.strip() == str(target)
    assert target.read_text() == rho_dts_text()


def test_copy_into_an_unwritable_place_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = subprocess.run(
        [sys.executable, "-m", "rho_ext_js.typings", "--copy", str(blocker / "types")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "cannot copy rho.d.ts" in done.stderr and "Traceback" not in done.stderr
