"""Name and path globs shared by find_files and search_files."""

from __future__ import annotations

import pytest

from rho_tools_fs.globs import GlobError, compile_glob


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("*.rs", "src/main.rs", True),
        ("*.rs", "src/main.rsx", False),
        ("*test*", "a/my_test_file.py", True),
        ("Cargo.toml", "x/Cargo.toml", True),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("*.{js,ts}", "a/b.ts", True),
        ("[!a]*", "b", True),
        ("[!a]*", "a", False),
        ("[a-c].md", "b.md", True),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("src/**/*.py", "src/c.py", True),
        ("src/*.py", "src/a/c.py", False),
        ("/src/*.py", "src/c.py", True),
        ("\\*.txt", "*.txt", True),
        ("\\*.txt", "a.txt", False),
    ],
)
def test_glob_matching(glob: str, path: str, expected: bool) -> None:
    assert compile_glob(glob)(path) is expected


@pytest.mark.parametrize("glob", ["", "[abc", "{a,b", "a\\", "{a,{b}}", "[z-a]"])
def test_invalid_globs_are_refused(glob: str) -> None:
    with pytest.raises(GlobError):
        compile_glob(glob)
