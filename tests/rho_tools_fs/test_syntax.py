"""Syntax checks after an edit: new ERROR/MISSING nodes for several languages, the reject
setting, token-splitting boundaries of exact-match edits, incremental parsing and the cache."""

from __future__ import annotations

import random
import typing
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.security import SandboxRoot
from rho_tools_fs import syntax
from rho_tools_fs.edit_plan import byte_edits, plan_edit
from rho_tools_fs.edit_run import edit_file_at
from rho_tools_fs.languages import EXTENSIONS, FILENAMES, language_for

VALID = {
    "m.py": "def area(width, height):\n    return width * height\n",
    "m.rs": "fn area(width: u32, height: u32) -> u32 {\n    width * height\n}\n",
    "m.ts": "function area(width: number, height: number): number {\n  return width * height;\n}\n",
    "m.json": '{\n  "width": 3,\n  "height": 4\n}\n',
    "m.go": "package main\n\nfunc area(width int, height int) int {\n\treturn width * height\n}\n",
}
BREAK = {
    "m.py": ("return width * height", "return (width * height"),
    "m.rs": ("width * height\n}", "width * height\n"),
    "m.ts": ("height: number)", "height: number"),
    "m.json": ('"width": 3,', '"width": 3,,'),
    "m.go": ("func area(", "func area(("),
}


async def edit(root: Path, name: str, old: str, new: str, **settings: Any) -> Any:
    return await edit_file_at(
        SandboxRoot(root), name, [{"old_text": old, "new_text": new}], **settings
    )


@pytest.mark.parametrize("name", sorted(VALID))
async def test_new_syntax_error_is_reported_with_line_and_column(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(VALID[name])
    old, new = BREAK[name]
    result = await edit(tmp_path, name, old, new)
    assert not result.is_error, result.output
    assert (tmp_path / name).read_text() == VALID[name].replace(old, new)
    warning = result.output.split("\n[warning] syntax: ")[1]
    assert warning.startswith("the edit introduces 1 syntax error") or "syntax errors" in warning
    assert f"({language_for(name)}):\n  line " in warning
    assert ", column " in warning


CLEAN = {
    "m.py": ("width * height", "height * width"),
    "m.rs": ("width * height", "height * width"),
    "m.ts": ("width * height", "height * width"),
    "m.json": ('"height": 4', '"height": 5'),
    "m.go": ("width * height", "height * width"),
}


@pytest.mark.parametrize("name", sorted(VALID))
async def test_a_clean_edit_has_no_warning(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(VALID[name])
    result = await edit(tmp_path, name, *CLEAN[name], reject_syntax_errors=True)
    assert not result.is_error, result.output
    assert "[warning]" not in result.output


async def test_reject_setting_refuses_the_edit(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(VALID["m.py"])
    old, new = BREAK["m.py"]
    result = await edit(tmp_path, "m.py", old, new, reject_syntax_errors=True)
    assert result.is_error
    assert result.output.startswith(
        "edit_file: edit refused: it would add 1 syntax error to `m.py` (python); "
        "nothing was written:\n  line 2, column "
    )
    assert (tmp_path / "m.py").read_text() == VALID["m.py"]


async def test_reject_setting_allows_clean_edits(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(VALID["m.py"])
    result = await edit(tmp_path, "m.py", "width *", "width +", reject_syntax_errors=True)
    assert not result.is_error


async def test_errors_already_there_are_not_blamed_on_the_edit(tmp_path: Path) -> None:
    broken = "def f(:\n    pass\n\ndef g():\n    return 1\n"
    (tmp_path / "m.py").write_text(broken)
    result = await edit(tmp_path, "m.py", "return 1", "return 2", reject_syntax_errors=True)
    assert not result.is_error, result.output
    assert "[warning]" not in result.output


async def test_syntax_check_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(VALID["m.py"])
    old, new = BREAK["m.py"]
    result = await edit(tmp_path, "m.py", old, new, syntax_check=False, reject_syntax_errors=True)
    assert not result.is_error and "[warning]" not in result.output


async def test_unknown_extension_is_not_checked(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("(unbalanced\n")
    result = await edit(tmp_path, "notes.txt", "unbalanced", "((still", reject_syntax_errors=True)
    assert not result.is_error


async def test_hashline_edits_are_checked_too(tmp_path: Path) -> None:
    from rho_tools_fs.hashline import line_hash

    (tmp_path / "m.rs").write_text(VALID["m.rs"])
    pos = f"3#{line_hash('}', 3)}"
    result = await edit_file_at(
        SandboxRoot(tmp_path), "m.rs", [{"op": "delete", "pos": pos}], reject_syntax_errors=True
    )
    assert result.is_error and "(rust); nothing was written:\n  line 1, column 1: " in result.output


# ── boundaries that split a token ───────────────────────────────────────────


async def test_boundary_inside_an_identifier_warns(tmp_path: Path) -> None:
    (tmp_path / "m.rs").write_text(VALID["m.rs"])
    result = await edit(tmp_path, "m.rs", "idth: u32, h", "idth: u64, h")
    assert not result.is_error
    assert '\n[warning] edit start splits a `identifier` node: "width"' in result.output
    assert '\n[warning] edit end splits a `identifier` node: "height"' in result.output


async def test_split_warning_names_the_edit_when_there_are_several(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(VALID["m.py"])
    result = await edit_file_at(
        SandboxRoot(tmp_path),
        "m.py",
        [
            {"old_text": "area", "new_text": "surface"},
            {"old_text": "eturn", "new_text": "eturn"},
        ],
    )
    assert '[warning] edit 2 start splits a `return` node: "return"' in result.output
    assert "edit 1" not in result.output


async def test_long_token_text_is_cut_at_40_bytes(tmp_path: Path) -> None:
    name = "a" * 30 + "b" * 30
    (tmp_path / "m.py").write_text(f"{name} = 1\n")
    result = await edit(tmp_path, "m.py", "ab", "a_b")
    assert f'node: "{name[:40]}"...' in result.output


@pytest.mark.parametrize(
    ("name", "content", "old"),
    [
        ("m.py", "x = 'hello world'  # a comment here\n", "lo wor"),
        ("m.py", "x = 1  # a comment here\n", "comm"),
        ("m.rs", 'let s = "some text";\n', "ome te"),
        ("m.json", '{"k": "value words"}\n', "ue wo"),
        ("notes.md", "# Title\n\nSome prose here.\n", "ose he"),
    ],
)
async def test_boundaries_in_strings_comments_and_prose_are_normal(
    tmp_path: Path, name: str, content: str, old: str
) -> None:
    (tmp_path / name).write_text(content)
    result = await edit(tmp_path, name, old, old.upper())
    assert not result.is_error, result.output
    assert "splits" not in result.output


async def test_boundaries_between_tokens_do_not_warn(tmp_path: Path) -> None:
    (tmp_path / "m.go").write_text(VALID["m.go"])
    result = await edit(tmp_path, "m.go", "width * height", "height * width")
    assert "[warning]" not in result.output


# ── incremental parsing and the cache ───────────────────────────────────────


def _sexp(language: str, data: bytes) -> str:
    return str(syntax._parser(language).parse(data).root_node)


def test_incremental_parse_matches_a_fresh_parse(tmp_path: Path) -> None:
    rng = random.Random(7)
    words = ["x", "(", ")", "\n", "def f():\n    ", "é", "\r\n", " + ", "return 1\n", "#c\n"]
    source = "".join(f"def f{n}(a):\n    return a + {n}\n\n" for n in range(30))
    (tmp_path / "m.py").write_text(source)
    root = SandboxRoot(tmp_path)
    for _ in range(25):
        text = (tmp_path / "m.py").read_text()
        edits = []
        for start in sorted(rng.sample(range(len(text) - 5), 3)):
            old = text[start : start + rng.randint(1, 4)]
            if text.count(old) == 1 and "\r" not in old:
                edits.append({"old_text": old, "new_text": "".join(rng.choices(words, k=2))})
        try:
            plan = plan_edit(root, "m.py", edits)
        except Exception:
            continue  # overlapping or ambiguous picks
        changes, _ = byte_edits(plan)
        before = syntax._parse("python", plan.read.data, syntax.TreeCache())
        after = syntax._reparse("python", before, plan.new_data, changes)
        assert str(after.root_node) == _sexp("python", plan.new_data)
        (tmp_path / "m.py").write_bytes(plan.new_data)


def test_cache_is_bounded_and_reuses_trees() -> None:
    cache = syntax.TreeCache(size=2)
    first = syntax._parse("json", b"[1]", cache)
    assert syntax._parse("json", b"[1]", cache) is first
    syntax._parse("json", b"[2]", cache)
    syntax._parse("json", b"[3]", cache)
    assert len(cache) == 2
    assert syntax._parse("json", b"[1]", cache) is not first


def test_check_caches_the_new_tree_for_the_next_edit() -> None:
    cache = syntax.TreeCache()
    edit = syntax.ByteEdit(1, 2, 2, (0, 1), (0, 2), (0, 2))
    syntax.check("json", b"[1]", b"[2]", [edit], cache=cache)
    assert cache.get(cache.key("json", b"[2]")) is not None


# ── the language table ──────────────────────────────────────────────────────


def test_every_mapped_language_is_in_the_pack() -> None:
    import tree_sitter_language_pack as pack

    supported = set(typing.get_args(pack.SupportedLanguage))
    assert set(EXTENSIONS.values()) | set(FILENAMES.values()) <= supported
    assert len(set(EXTENSIONS.values())) > 100


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/main.RS", "rust"),
        ("a/b.tsx", "tsx"),
        ("Dockerfile", "dockerfile"),
        ("build/Makefile", "make"),
        ("go.mod", "gomod"),
        ("x.unknown", None),
        ("README", None),
        (".bashrc", "bash"),
    ],
)
def test_language_for(path: str, language: str | None) -> None:
    assert language_for(path) == language


DECORATED = '''"""Say hello to whoever runs it."""

import sys

from greeting import greet


@command(name="hello")
def main() -> None:
    """Greet the first argument."""
    return greet(sys.argv[1])
'''


@pytest.mark.parametrize(
    ("old", "new", "line", "column"),
    [
        ("def main() -> None:", "def main( -> None:", 9, 1),
        ("def main() -> None:", "def main() -> None", 9, 1),
        ("return greet(sys.argv[1])", "return greet(sys.argv[1]", 11, 5),
        ('@command(name="hello")', '@command(name="hello"', 8, 1),
    ],
)
async def test_a_syntax_error_is_reported_on_the_edited_line_not_where_recovery_began(
    tmp_path: Path, old: str, new: str, line: int, column: int
) -> None:
    (tmp_path / "hello.py").write_text(DECORATED)
    result = await edit(tmp_path, "hello.py", old, new)
    warning = result.output.split("\n[warning] syntax: ")[1].split("\n")
    first = warning[1].strip()
    assert first.startswith(f"line {line}, column {column}: "), warning


def test_an_error_stretched_over_the_edit_is_pointed_at_on_the_edit_line() -> None:
    before = DECORATED.encode()
    after = DECORATED.replace("def main() -> None:", "def main( -> None:").encode()
    at = before.index(b"def main(") + len(b"def main(")
    edit = syntax.ByteEdit(at, at + 1, at, (8, 9), (8, 10), (8, 9))
    report = syntax.check("python", before, after, [edit], cache=syntax.TreeCache())
    assert report.new_errors[0] == syntax.SyntaxIssue(9, 1, "syntax error at `def main( -> None:`")


def test_edited_ranges_are_where_each_new_text_lies_after_all_edits() -> None:
    edits = [
        syntax.ByteEdit(20, 25, 30, (2, 0), (2, 5), (2, 10)),  # 5 bytes longer
        syntax.ByteEdit(0, 4, 1, (0, 0), (0, 4), (0, 1)),  # 3 bytes shorter
    ]
    assert syntax.edited_ranges(edits) == [(0, 1), (17, 27)]
