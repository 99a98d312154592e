"""search_files through ripgrep and through the Python fallback: same rules, same lines."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import Cancelled, CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult
from rho_tools_fs.search_files import search_files


def make_ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def search(root: Path, **args: Any) -> ToolResult:
    return await search_files.execute(dict(args), make_ctx(root))


def build(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


TREE: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n!keep.log\n/only-top.txt\n",
    ".git/info/exclude": "excluded.txt\n",
    ".git/config": "needle in git\n",
    ".hidden/file.txt": "needle hidden\n",
    ".dotfile": "needle dot\n",
    "build/out.txt": "needle built\n",
    "src/build/deep.txt": "needle deep build\n",
    "a.log": "needle log\n",
    "keep.log": "needle keep\n",
    "only-top.txt": "needle top\n",
    "src/only-top.txt": "needle nested top\n",
    "excluded.txt": "needle excluded\n",
    "bin.dat": b"needle\0binary\n",
    "src/main.rs": "fn main() {\n    needle();   \n}\n",
    "src/lib.rs": "// NEEDLE upper\n",
    "src/sub/.gitignore": "*.gen\n!keep.gen\n",
    "src/sub/x.gen": "needle generated\n",
    "src/sub/keep.gen": "needle kept generated\n",
    "a-c": "needle dash\n",
    "a/b": "needle slash\n",
    "docs/readme.md": "needle docs\n-needle dashed\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build(tmp_path / "project", TREE)


def test_tool_metadata() -> None:
    assert search_files.risk is Risk.READ
    assert search_files.phase is Phase.EXPLORATION
    assert search_files.parameters["required"] == ["pattern"]


async def test_skips_hidden_binary_and_ignored_files(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="needle")
    assert not result.is_error
    assert result.output.split("\n") == [
        "a/b:1: needle slash",
        "a-c:1: needle dash",
        "docs/readme.md:1: needle docs",
        "docs/readme.md:2: -needle dashed",
        "keep.log:1: needle keep",
        "src/main.rs:2:     needle();",
        "src/only-top.txt:1: needle nested top",
        "src/sub/keep.gen:1: needle kept generated",
    ]


async def test_global_excludes_file_is_honoured(
    engine: str, tree: Path, no_user_git_config: Path
) -> None:
    (no_user_git_config / ".gitconfig").write_text("[core]\n\texcludesfile = ~/global-ignore\n")
    (no_user_git_config / "global-ignore").write_text("*.md\n")
    result = await search(tree, pattern="needle docs")
    assert result.output == "No matches for 'needle docs'"


async def test_root_rules_apply_to_a_scoped_search(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="needle", path="src")
    assert result.output.split("\n") == [
        "src/main.rs:2:     needle();",
        "src/only-top.txt:1: needle nested top",
        "src/sub/keep.gen:1: needle kept generated",
    ]


async def test_a_pattern_starting_with_a_dash_is_a_pattern(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="-needle")
    assert result.output == "docs/readme.md:2: -needle dashed"


async def test_ignore_case_and_glob(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="NEEDLE", ignore_case=True, glob="*.rs")
    assert result.output.split("\n") == [
        "src/lib.rs:1: // NEEDLE upper",
        "src/main.rs:2:     needle();",
    ]
    result = await search(tree, pattern="needle", glob="src/**/*.gen")
    assert result.output == "src/sub/keep.gen:1: needle kept generated"


async def test_overflow_notice_and_clamped_max_results(engine: str, tmp_path: Path) -> None:
    build(tmp_path, {f"f{i:03}.txt": "hit\n" for i in range(3)})
    result = await search(tmp_path, pattern="hit", max_results=2)
    assert result.output == (
        "f000.txt:1: hit\nf001.txt:1: hit\n… more matches truncated (showing first 2; raise "
        "max_results up to 500 or narrow the pattern/path)"
    )
    assert (
        search_files.outline({"pattern": "hit"}, result)
        == "search_files 'hit': 2 matches (truncated)"
    )
    result = await search(tmp_path, pattern="hit", max_results=0)
    assert result.output.startswith("f000.txt:1: hit\n… more matches truncated (showing first 1;")
    result = await search(tmp_path, pattern="hit", max_results=3)
    assert "truncated" not in result.output


async def test_long_lines_are_cut_at_240_characters(engine: str, tmp_path: Path) -> None:
    build(tmp_path, {"min.js": "x" * 300 + " hit\n"})
    result = await search(tmp_path, pattern="hit")
    assert result.output == "min.js:1: " + "x" * 240 + "…"


async def test_no_matches_message(engine: str, tmp_path: Path) -> None:
    build(tmp_path, {"a.txt": "nothing\n"})
    result = await search(tmp_path, pattern="absent")
    assert not result.is_error and result.output == "No matches for 'absent'"
    assert search_files.outline({"pattern": "absent"}, result) == "search_files 'absent': 0 matches"


async def test_a_path_outside_the_sandbox_is_refused(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="x", path="../")
    assert result.is_error
    assert result.output.startswith("search_files: path '../' is outside the project sandbox")
    assert "relative to the project root" in result.output


async def test_git_directory_is_never_searched(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="needle", path=".git")
    assert result.is_error and "inside .git" in result.output


async def test_symlinks_are_not_followed(engine: str, tmp_path: Path) -> None:
    outside = build(tmp_path / "outside", {"secret.txt": "needle secret\n"})
    project = build(tmp_path / "project", {"in/real.txt": "needle real\n"})
    (project / "out-dir").symlink_to(outside)
    (project / "out-file.txt").symlink_to(outside / "secret.txt")
    (project / "in-link.txt").symlink_to(project / "in" / "real.txt")
    result = await search(project, pattern="needle")
    assert result.output == "in/real.txt:1: needle real"


async def test_a_file_scope_searches_that_file(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="fn", path="src/main.rs")
    assert result.output == "src/main.rs:1: fn main() {"


async def test_invalid_regex_is_a_clear_error(engine: str, tree: Path) -> None:
    result = await search(tree, pattern="(unclosed")
    assert result.is_error
    assert result.output.startswith("search_files: invalid regex pattern '(unclosed'")
    assert "\nHint: `(` opens a group that is never closed" in result.output


@pytest.mark.parametrize(
    ("pattern", "hint"),
    [
        (
            "greet(",
            "`(` opens a group that is never closed: to match it literally, escape it as "
            "`\\(` (`greet\\(`), or set fixed_strings: true",
        ),
        (
            "greet)",
            "`)` closes a group that was never opened: to match it literally, escape it "
            "as `\\)` (`greet\\)`)",
        ),
        (
            "items[0",
            "`[` starts a character class (like `[a-z]`) that is never closed: to match "
            "it literally, escape it as `\\[` (`items\\[0`)",
        ),
        (
            "*.rs",
            "`*`, `+`, `?` and `{n}` repeat what comes before them, and one here has "
            "nothing to repeat: to match it literally, escape it as `\\*` and `\\+` and `\\?` "
            "(`\\*.rs`)",
        ),
        ("a(+b)", "(`a(\\+b)`)"),
        (
            "path\\q",
            "`\\q` is not an escape this regex syntax knows: write `\\\\` to match a backslash",
        ),
        (
            "x{3,1}",
            "`{` starts a counted repetition like `{2}` or `{2,5}` (the smaller number first)",
        ),
        ("[z-a]", "a range in `[…]` runs backwards (like `[z-a]`)"),
        ("ends\\", "the pattern ends with a lone `\\`, which escapes nothing"),
    ],
)
async def test_each_regex_mistake_gets_the_hint_that_fits(
    engine: str, tree: Path, pattern: str, hint: str
) -> None:
    result = await search(tree, pattern=pattern)
    assert result.is_error
    assert result.output.startswith(f"search_files: invalid regex pattern '{pattern}': ")
    assert hint in result.output.split("\nHint: ", 1)[1]
    assert result.output.rstrip().endswith(
        "or set fixed_strings: true to search for the text as it is."
    )
    assert "look-around" not in result.output


async def test_look_around_gets_the_look_around_hint(tree: Path) -> None:
    result = await search(tree, pattern="(?<=fn )main")  # ripgrep: not supported
    assert result.is_error and "Hint: look-around (lookahead" in result.output


@pytest.mark.parametrize("pattern", ["needle()", "main() {", "[", "*", "a\\", "(?<=x)"])
async def test_fixed_strings_searches_for_the_text_as_it_is(
    engine: str, tmp_path: Path, pattern: str
) -> None:
    build(tmp_path, {"a.txt": f"before\nsay {pattern} here\nafter\n", "b.txt": "needle\n"})
    result = await search(tmp_path, pattern=pattern, fixed_strings=True)
    assert (result.output, result.is_error) == (f"a.txt:2: say {pattern} here", False)


async def test_fixed_strings_with_ignore_case(engine: str, tmp_path: Path) -> None:
    build(tmp_path, {"a.txt": "Greet(World)\n"})
    result = await search(tmp_path, pattern="greet(w", fixed_strings=True, ignore_case=True)
    assert result.output == "a.txt:1: Greet(World)"


async def test_invalid_glob_and_nul_pattern_are_errors(engine: str, tree: Path) -> None:
    assert (await search(tree, pattern="x", glob="[oops")).output.startswith(
        "search_files: invalid glob '[oops'"
    )
    assert (await search(tree, pattern="a\0b")).is_error


async def test_a_file_with_a_nul_byte_far_in_is_binary(engine: str, tmp_path: Path) -> None:
    build(tmp_path, {"late.bin": b"hit\n" + b"a" * 100_000 + b"\n\0\nhit\n", "t.txt": "hit\n"})
    result = await search(tmp_path, pattern="hit")
    assert result.output == "t.txt:1: hit"


async def test_invalid_utf8_lines_and_names_are_shown_with_replacement(
    engine: str, tmp_path: Path
) -> None:
    (tmp_path / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"hit \xff here\n")
    result = await search(tmp_path, pattern="hit")
    assert result.output == "caf\ufffd.txt:1: hit \ufffd here"


@pytest.mark.parametrize(
    "query",
    [
        {"pattern": "needle"},
        {"pattern": "needle", "path": "src"},
        {"pattern": "needle", "path": "src/sub"},
        {"pattern": "^needle", "max_results": 3},
        {"pattern": "NEEDLE", "ignore_case": True, "glob": "*.{rs,md}"},
        {"pattern": ".", "glob": "src/**"},
        {"pattern": "e", "path": "docs/readme.md"},
    ],
)
async def test_ripgrep_and_the_fallback_agree(
    tree: Path, monkeypatch: pytest.MonkeyPatch, query: dict[str, Any]
) -> None:
    monkeypatch.delenv("RHO_RG", raising=False)
    with_rg = await search(tree, **query)
    monkeypatch.setenv("RHO_RG", "")
    fallback = await search(tree, **query)
    assert with_rg == fallback


FAKE_RG = """#!{python}
import os, sys, time
with open({pidfile!r}, "w") as handle:
    handle.write(str(os.getpid()))
time.sleep(60)
"""


async def test_cancelling_the_call_kills_ripgrep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "rg.pid"
    fake = tmp_path / "fake-rg"
    fake.write_text(FAKE_RG.format(python=sys.executable, pidfile=str(pidfile)))
    fake.chmod(0o755)
    monkeypatch.setenv("RHO_RG", str(fake))
    project = build(tmp_path / "project", {"a.txt": "x\n"})
    ctx = make_ctx(project)
    call = asyncio.ensure_future(ctx.cancel.run(search_files.execute({"pattern": "x"}, ctx)))
    while not pidfile.exists() or not pidfile.read_text():
        await asyncio.sleep(0.01)
    pid = int(pidfile.read_text())
    ctx.cancel.cancel()
    with pytest.raises(Cancelled):
        await call
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
