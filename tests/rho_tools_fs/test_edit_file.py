"""edit_file: hashline and exact-match edits on real files, every error form, and the fixes
over rho's original (end anchors checked, no relaxation onto changed lines, overlaps refused,
line endings and the final newline kept, permissions kept, concurrent changes refused)."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult
from rho_tools_fs import edit_write
from rho_tools_fs.edit_file import edit_file
from rho_tools_fs.edit_run import edit_file_at
from rho_tools_fs.hashline import line_hash

SAMPLE = "alpha one\nbeta two\ngamma three\ndelta four\nepsilon five\n"


def anchor(text: str, line: int) -> str:
    """The anchor read_file would show for line `line` of `text`."""
    return f"{line}#{line_hash(text.replace(chr(13) + chr(10), chr(10)).split(chr(10))[line - 1], line)}"


def ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def run(root: Path, path: str, *edits: dict[str, Any]) -> ToolResult:
    return await edit_file.execute({"path": path, "edits": list(edits)}, ctx(root))


def write(root: Path, name: str, content: str | bytes) -> Path:
    target = root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content.encode() if isinstance(content, str) else content)
    return target


def test_tool_metadata() -> None:
    assert edit_file.name == "edit_file"
    assert edit_file.risk is Risk.WRITE
    assert edit_file.phase is Phase.EXECUTION
    assert edit_file.parameters["required"] == ["path", "edits"]
    item = edit_file.parameters["properties"]["edits"]["items"]["properties"]
    assert set(item) == {"op", "pos", "end", "lines", "old_text", "new_text"}


# ── hashline operations ─────────────────────────────────────────────────────


async def test_replace_one_line(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path, "a.txt", {"op": "replace", "pos": anchor(SAMPLE, 2), "lines": ["BETA"]}
    )
    assert not result.is_error, result.output
    assert file.read_text() == SAMPLE.replace("beta two", "BETA")
    assert result.output.startswith("applied 1 hashline edit(s) to a.txt\n<diff>\n")
    assert f"- 2#{line_hash('beta two', 2)}:beta two\n+ 2#{line_hash('BETA', 2)}:BETA\n" in (
        result.output
    )
    assert f"  1#{line_hash('alpha one', 1)}:alpha one\n" in result.output
    assert "<fresh-anchors>\n" in result.output
    assert result.output.endswith(
        "</fresh-anchors>\nLines have fresh anchors. Use these for subsequent edits to this region."
    )


async def test_replace_a_range_with_end(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path,
        "a.txt",
        {"op": "replace", "pos": anchor(SAMPLE, 2), "end": anchor(SAMPLE, 4), "lines": ["X"]},
    )
    assert not result.is_error, result.output
    assert file.read_text() == "alpha one\nX\nepsilon five\n"


async def test_append_prepend_and_delete(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path,
        "a.txt",
        {"op": "append", "pos": anchor(SAMPLE, 1), "lines": ["after 1"]},
        {"op": "prepend", "pos": anchor(SAMPLE, 3), "lines": ["before 3", "also"]},
        {"op": "delete", "pos": anchor(SAMPLE, 5)},
    )
    assert not result.is_error, result.output
    assert file.read_text() == (
        "alpha one\nafter 1\nbeta two\nbefore 3\nalso\ngamma three\ndelta four\n"
    )
    assert result.output.startswith("applied 3 hashline edit(s) to a.txt")


async def test_delete_a_range_and_the_last_line_without_newline(tmp_path: Path) -> None:
    text = "one\ntwo\nthree"
    file = write(tmp_path, "a.txt", text)
    result = await run(
        tmp_path, "a.txt", {"op": "delete", "pos": anchor(text, 2), "end": anchor(text, 3)}
    )
    assert not result.is_error, result.output
    assert file.read_text() == "one"


async def test_replace_with_no_lines_leaves_an_empty_line(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    await run(tmp_path, "a.txt", {"op": "replace", "pos": anchor(SAMPLE, 2), "lines": []})
    assert file.read_text() == SAMPLE.replace("beta two", "")


async def test_a_lines_element_with_a_line_break_is_two_lines(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    await run(tmp_path, "a.txt", {"op": "replace", "pos": anchor(SAMPLE, 2), "lines": ["b1\nb2"]})
    assert file.read_text() == SAMPLE.replace("beta two", "b1\nb2")


async def test_anchor_copied_with_its_row_content_is_accepted(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    row = f" {anchor(SAMPLE, 2)}:beta two"
    result = await run(tmp_path, "a.txt", {"op": "replace", "pos": row, "lines": ["B"]})
    assert not result.is_error, result.output
    assert file.read_text() == SAMPLE.replace("beta two", "B")


# ── line endings and the final newline ──────────────────────────────────────


async def test_crlf_file_stays_crlf(tmp_path: Path) -> None:
    text = SAMPLE.replace("\n", "\r\n")
    file = write(tmp_path, "a.txt", text)
    result = await run(
        tmp_path,
        "a.txt",
        {"op": "replace", "pos": anchor(text, 2), "lines": ["B1", "B2"]},
        {"old_text": "delta four\nepsilon", "new_text": "D\nE"},
    )
    assert not result.is_error, result.output
    assert file.read_bytes() == b"alpha one\r\nB1\r\nB2\r\ngamma three\r\nD\r\nE five\r\n"


async def test_missing_final_newline_stays_missing(tmp_path: Path) -> None:
    text = "one\ntwo"
    file = write(tmp_path, "a.txt", text)
    await run(tmp_path, "a.txt", {"op": "append", "pos": anchor(text, 2), "lines": ["three"]})
    assert file.read_bytes() == b"one\ntwo\nthree"
    await run(
        tmp_path, "a.txt", {"op": "replace", "pos": anchor("one\ntwo\nthree", 1), "lines": ["1"]}
    )
    assert file.read_bytes() == b"1\ntwo\nthree"


async def test_final_newline_stays(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    await run(tmp_path, "a.txt", {"op": "delete", "pos": anchor(SAMPLE, 5)})
    assert file.read_text() == "alpha one\nbeta two\ngamma three\ndelta four\n"


async def test_untouched_lines_keep_mixed_endings(tmp_path: Path) -> None:
    text = "a1\r\nb2\nc3\r\n"
    file = write(tmp_path, "a.txt", text)
    await run(tmp_path, "a.txt", {"op": "replace", "pos": anchor(text, 2), "lines": ["B"]})
    assert file.read_bytes() == b"a1\r\nB\nc3\r\n"


# ── stale anchors ───────────────────────────────────────────────────────────


async def test_moved_line_is_found_nearby_with_a_note(tmp_path: Path) -> None:
    stale = anchor(SAMPLE, 3)  # gamma three at line 3
    file = write(tmp_path, "a.txt", "new first\n" + SAMPLE)  # now at line 4
    result = await run(tmp_path, "a.txt", {"op": "replace", "pos": stale, "lines": ["G"]})
    assert not result.is_error, result.output
    assert file.read_text() == "new first\n" + SAMPLE.replace("gamma three", "G")
    hash_ = stale.split("#")[1]
    assert result.output.startswith(
        "applied 1 hashline edit(s) to a.txt (with anchor relaxation)\n"
        f"  anchor {stale} resolved to 4#{hash_} (neighborhood search, ±1)\n"
        "  Warning: hashes were stale. Re-read file if further edits needed.\n<diff>"
    )


async def test_a_changed_line_at_the_anchor_is_never_edited(tmp_path: Path) -> None:
    stale = anchor(SAMPLE, 2)
    changed = SAMPLE.replace("beta two", "beta 2 changed")
    file = write(tmp_path, "a.txt", changed)
    result = await run(tmp_path, "a.txt", {"op": "replace", "pos": stale, "lines": ["X"]})
    assert result.is_error
    assert file.read_text() == changed
    current = line_hash("beta 2 changed", 2)
    old = stale.split("#")[1]
    assert result.output == (
        f"edit_file: hash mismatch at anchor {stale} and no similar content found nearby\n"
        f"Expected line:  {stale} (the hash line 2 had when it was read; its content then is "
        "not known)\n"
        f"Actual line:    2#{current}:beta 2 changed\n"
        f"Line 2 changed since it was read (its hash was {old}, it is {current} now); no line "
        "within 5 lines has its old hash.\n\n"
        "Fresh hashes around line 2:\n"
        f"1#{line_hash('alpha one', 1)}:alpha one\n"
        f"2#{current}:beta 2 changed\n"
        f"3#{line_hash('gamma three', 3)}:gamma three\n"
        f"4#{line_hash('delta four', 4)}:delta four\n"
        f"5#{line_hash('epsilon five', 5)}:epsilon five\n\n"
        f"Use updated anchor 2#{current} to retry."
    )


async def test_a_stale_anchor_copied_with_its_row_shows_what_the_line_was(
    tmp_path: Path,
) -> None:
    row = f"{anchor(SAMPLE, 2)}:beta two"  # as read_file showed it
    write(tmp_path, "a.txt", SAMPLE.replace("beta two", "beta 2 changed"))
    result = await run(tmp_path, "a.txt", {"op": "replace", "pos": row, "lines": ["X"]})
    current = line_hash("beta 2 changed", 2)
    lines = result.output.split("\n")
    assert lines[1] == f"Expected line:  {row}"
    assert lines[2] == f"Actual line:    2#{current}:beta 2 changed"
    assert lines[1].index("#") == lines[2].index("#")  # aligned


async def test_content_sent_with_an_anchor_that_does_not_hash_to_it_is_not_echoed(
    tmp_path: Path,
) -> None:
    row = f"{anchor(SAMPLE, 2)}:something the line never said"
    write(tmp_path, "a.txt", SAMPLE.replace("beta two", "beta 2 changed"))
    result = await run(tmp_path, "a.txt", {"op": "replace", "pos": row, "lines": ["X"]})
    assert "never said" not in result.output
    assert "its content then is not known" in result.output


async def test_a_line_moved_far_is_said_to_have_moved(tmp_path: Path) -> None:
    text = "".join(f"filler {n}\n" for n in range(1, 31))
    stale = f"3#{line_hash('filler 3', 3)}"
    moved = text.replace("filler 3\n", "").replace("filler 20\n", "filler 20\nfiller 3\n")
    write(tmp_path, "a.txt", moved)
    result = await run(tmp_path, "a.txt", {"op": "delete", "pos": stale})
    assert result.is_error
    assert "a line with its old hash is now at line 20, farther than 5 lines: re-read" in (
        result.output
    )


async def test_fresh_rows_of_a_long_file_are_aligned_like_read_file_rows(tmp_path: Path) -> None:
    text = "".join(f"line number {n}\n" for n in range(1, 121))
    write(tmp_path, "a.txt", text.replace("line number 99\n", "changed\n"))
    result = await run(tmp_path, "a.txt", {"op": "delete", "pos": anchor(text, 99)})
    rows = result.output.split("Fresh hashes around line 99:\n", 1)[1].split("\n\n")[0]
    rows_list = rows.split("\n")
    assert [row[:3] for row in rows_list] == [" 96", " 97", " 98", " 99", "100", "101", "102"]
    assert len({row.index("#") for row in rows_list}) == 1


async def test_end_anchor_hash_is_checked(tmp_path: Path) -> None:
    end = anchor(SAMPLE, 4)
    changed = SAMPLE.replace("delta four", "delta CHANGED")
    file = write(tmp_path, "a.txt", changed)
    result = await run(tmp_path, "a.txt", {"op": "delete", "pos": anchor(changed, 2), "end": end})
    assert result.is_error
    assert result.output.startswith(f"edit_file: hash mismatch at end anchor {end} ")
    assert file.read_text() == changed


async def test_content_twice_nearby_is_not_guessed(tmp_path: Path) -> None:
    text = "x\nsame line here\ny\nsame line here\nz\n"
    stale = f"3#{line_hash('same line here', 1)}"
    file = write(tmp_path, "a.txt", text)
    result = await run(tmp_path, "a.txt", {"op": "delete", "pos": stale})
    assert result.is_error
    assert "its content appears more than once nearby (2, 4)" in result.output
    assert file.read_text() == text


# ── overlaps ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "edits",
    [
        [("replace", 2, 3), ("replace", 3, None)],
        [("delete", 1, 4), ("append", 2, None)],
        [("replace", 2, None), ("delete", 2, None)],
    ],
)
async def test_overlapping_edits_are_refused(tmp_path: Path, edits: list[tuple]) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    specs = []
    for op, pos, end in edits:
        spec: dict[str, Any] = {"op": op, "pos": anchor(SAMPLE, pos), "lines": ["x"]}
        if end:
            spec["end"] = anchor(SAMPLE, end)
        specs.append(spec)
    result = await run(tmp_path, "a.txt", *specs)
    assert result.is_error
    assert result.output.startswith("edit_file: edits overlap (edit 1 and edit 2")
    assert file.read_text() == SAMPLE


async def test_exact_edits_overlapping_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path,
        "a.txt",
        {"old_text": "alpha one\nbeta", "new_text": "x"},
        {"old_text": "beta two", "new_text": "y"},
    )
    assert result.is_error and result.output.startswith("edit_file: edits overlap")


async def test_adjacent_edits_are_not_overlaps(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path,
        "a.txt",
        {"op": "replace", "pos": anchor(SAMPLE, 2), "lines": ["B"]},
        {"op": "append", "pos": anchor(SAMPLE, 2), "lines": ["after B"]},
        {"op": "replace", "pos": anchor(SAMPLE, 3), "lines": ["C"]},
    )
    assert not result.is_error, result.output
    assert file.read_text() == "alpha one\nB\nafter B\nC\ndelta four\nepsilon five\n"


# ── exact-match and mixed edits ─────────────────────────────────────────────


async def test_exact_edit(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(tmp_path, "a.txt", {"old_text": "gamma three", "new_text": "GAMMA"})
    assert not result.is_error, result.output
    assert file.read_text() == SAMPLE.replace("gamma three", "GAMMA")
    assert result.output.startswith("applied 1 edit(s) to a.txt\n<diff>\n")


async def test_exact_edits_match_the_original_not_each_other(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path,
        "a.txt",
        {"old_text": "alpha", "new_text": "beta two again"},
        {"old_text": "beta two", "new_text": "B"},
    )
    assert not result.is_error, result.output
    assert file.read_text() == SAMPLE.replace("beta two", "B").replace("alpha", "beta two again")


async def test_mixed_mode_header(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path,
        "a.txt",
        {"op": "delete", "pos": anchor(SAMPLE, 1)},
        {"old_text": "epsilon", "new_text": "E"},
    )
    assert not result.is_error, result.output
    assert result.output.startswith("applied 1 hashline + 1 legacy edit(s) to a.txt\n<diff>")
    assert file.read_text() == "beta two\ngamma three\ndelta four\nE five\n"


async def test_old_text_not_found(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(tmp_path, "a.txt", {"old_text": "zeta\tsix", "new_text": "x"})
    assert result.is_error
    assert result.output.startswith(
        'edit_file: old_text not found in `a.txt`: "zeta\\tsix"\nHint: '
    )


async def test_old_text_quote_is_cut_at_80_characters(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(tmp_path, "a.txt", {"old_text": "q" * 100, "new_text": "x"})
    assert f'`a.txt`: "{"q" * 80}"…\n' in result.output


@pytest.mark.parametrize(
    ("old_text", "hint"),
    [
        ("alpha\\s+one", "not as a regular expression, and it contains \\s+"),
        ("1#ABCD:alpha one", "contains read_file's line anchors"),
        ("alpha   one\n  beta two", "different whitespace or indentation"),
        ("<\\context:end>", "has no backslash there"),
        ("nothing like it", "must match the file exactly"),
    ],
)
async def test_not_found_hints(tmp_path: Path, old_text: str, hint: str) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(tmp_path, "a.txt", {"old_text": old_text, "new_text": "x"})
    assert result.is_error and hint in result.output


async def test_ambiguous_old_text_lists_lines(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "ab\nab\nc\nab\n")
    result = await run(tmp_path, "a.txt", {"old_text": "ab", "new_text": "x"})
    assert result.output == (
        'edit_file: old_text is ambiguous (3 matches) in `a.txt`: "ab"\n'
        "Hint: it occurs at lines 1, 2, 4; include more of the surrounding text to make it unique."
    )


# ── argument errors ─────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([], "edit_file: no edits provided"),
        (["x"], "edit_file: edit 1 is not an object"),
        ([{"lines": ["x"]}], "edit_file: edit 1 has neither 'op'"),
        ([{"op": "replace", "old_text": "a"}], "edit_file: edit 1 has both 'op' and 'old_text'"),
        ([{"op": "swap", "pos": "1#ABCD"}], "edit_file: invalid op 'swap'"),
        ([{"op": "replace", "lines": []}], "edit_file: edit 1 missing 'pos'"),
        ([{"op": "replace", "pos": "1#ABCD"}], "edit_file: edit 1 missing 'lines'"),
        ([{"op": "replace", "pos": "L1", "lines": []}], "edit_file: edit 1 invalid anchor 'L1'"),
        (
            [{"op": "delete", "pos": "1#ABCD", "end": "x"}],
            "edit_file: edit 1 invalid anchor 'x'",
        ),
        (
            [{"op": "append", "pos": "1#ABCD", "end": "2#ABCD", "lines": ["x"]}],
            "edit_file: edit 1: 'end' is only valid with replace or delete",
        ),
        (
            [{"op": "append", "pos": "1#ABCD", "lines": []}],
            "edit_file: edit 1: 'lines' is empty; nothing to append",
        ),
        ([{"op": "replace", "pos": "1#ABCD", "lines": [3]}], "'lines' must be an array of strings"),
        (
            [{"op": "delete", "pos": "9#ABCD"}],
            "edit_file: anchor line 9 is out of range (file has 5 lines)",
        ),
        (
            [{"op": "delete", "pos": "1#ABCD", "end": "7#ABCD"}],
            "edit_file: end anchor line 7 is out of range (file has 5 lines)",
        ),
        ([{"old_text": "x"}], "edit_file: edit 1 missing 'new_text'"),
        ([{"old_text": "", "new_text": "x"}], "edit_file: edit 1: old_text is empty"),
    ],
)
async def test_malformed_edits(tmp_path: Path, edits: list[Any], message: str) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(tmp_path, "a.txt", *edits)
    assert result.is_error
    assert message in result.output
    assert (tmp_path / "a.txt").read_text() == SAMPLE


async def test_end_before_pos_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(
        tmp_path, "a.txt", {"op": "delete", "pos": anchor(SAMPLE, 3), "end": anchor(SAMPLE, 2)}
    )
    assert (
        result.is_error and "end anchor 2#" in result.output and "is before pos 3#" in result.output
    )


async def test_bad_arguments(tmp_path: Path) -> None:
    context = ctx(tmp_path)
    assert (await edit_file.execute({"edits": []}, context)).output.startswith(
        "edit_file: missing 'path'"
    )
    assert (
        "must be an array" in (await edit_file.execute({"path": "a", "edits": {}}, context)).output
    )
    assert (
        "unknown argument(s): extra"
        in (await edit_file.execute({"path": "a", "edits": [], "extra": 1}, context)).output
    )


async def test_empty_file_cannot_take_hashline_edits(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "")
    result = await run(tmp_path, "a.txt", {"op": "append", "pos": "1#PZZZ", "lines": ["x"]})
    assert result.output.startswith("edit_file: cannot edit empty file")


# ── files edit_file refuses ─────────────────────────────────────────────────


async def test_missing_file(tmp_path: Path) -> None:
    result = await run(tmp_path, "nope.txt", {"old_text": "a", "new_text": "b"})
    assert result.is_error and result.output.startswith("edit_file: 'nope.txt' not found.")
    assert "relative to the project root" in result.output


async def test_git_and_rho_files_are_refused(tmp_path: Path) -> None:
    for name in (".git/config", ".rho/config.toml"):
        file = write(tmp_path, name, "a = 1\n")
        result = await run(tmp_path, name, {"old_text": "a = 1", "new_text": "a = 2"})
        assert result.is_error, name
        assert file.read_text() == "a = 1\n"


async def test_path_outside_the_project_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "link.txt").symlink_to(outside)
    for path in (str(outside), "../outside.txt", "link.txt"):
        result = await run(project, path, {"old_text": "secret", "new_text": "x"})
        assert result.is_error, path
    assert outside.read_text() == "secret\n"


async def test_binary_and_non_utf8_files_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "b.bin", b"ab\0cd\n")
    write(tmp_path, "l.txt", b"caf\xe9\n")
    result = await run(tmp_path, "b.bin", {"old_text": "ab", "new_text": "x"})
    assert "is a binary file" in result.output
    result = await run(tmp_path, "l.txt", {"old_text": "caf", "new_text": "x"})
    assert "is not valid UTF-8 (at byte 3)" in result.output
    assert (tmp_path / "l.txt").read_bytes() == b"caf\xe9\n"


async def test_unpaired_surrogate_in_new_text_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    result = await run(tmp_path, "a.txt", {"old_text": "alpha", "new_text": "\ud800"})
    assert result.is_error and "unpaired surrogate" in result.output
    assert (tmp_path / "a.txt").read_text() == SAMPLE


# ── the write ───────────────────────────────────────────────────────────────


async def test_permissions_are_kept(tmp_path: Path) -> None:
    file = write(tmp_path, "run.sh", "#!/bin/sh\necho hi\n")
    file.chmod(0o751)
    result = await run(tmp_path, "run.sh", {"old_text": "hi", "new_text": "ho"})
    assert not result.is_error, result.output
    assert stat.S_IMODE(file.stat().st_mode) == 0o751
    assert file.read_text() == "#!/bin/sh\necho ho\n"


async def test_edit_through_an_in_project_symlink_edits_the_target(tmp_path: Path) -> None:
    target = write(tmp_path, "real.txt", SAMPLE)
    (tmp_path / "alias.txt").symlink_to("real.txt")
    result = await run(tmp_path, "alias.txt", {"old_text": "alpha", "new_text": "A"})
    assert not result.is_error, result.output
    assert (tmp_path / "alias.txt").is_symlink()
    assert target.read_text().startswith("A one")


async def test_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", SAMPLE)
    await run(tmp_path, "a.txt", {"old_text": "alpha", "new_text": "A"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


async def test_a_concurrent_change_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    real = edit_write._check_unchanged

    def change_then_check(*args: Any) -> None:
        file.write_text(SAMPLE + "appended by someone else\n")
        real(*args)

    monkeypatch.setattr(edit_write, "_check_unchanged", change_then_check)
    result = await run(tmp_path, "a.txt", {"old_text": "alpha", "new_text": "A"})
    assert result.is_error
    assert result.output == (
        "edit_file: 'a.txt' changed on disk while the edit was prepared (its content changed); "
        "nothing was written. Read it again and redo the edit."
    )
    assert file.read_text() == SAMPLE + "appended by someone else\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


async def test_a_replaced_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    real = edit_write._check_unchanged

    def replace_then_check(*args: Any) -> None:
        other = write(tmp_path, "other.txt", SAMPLE)
        os.replace(other, file)  # same bytes, another file
        real(*args)

    monkeypatch.setattr(edit_write, "_check_unchanged", replace_then_check)
    result = await run(tmp_path, "a.txt", {"old_text": "alpha", "new_text": "A"})
    assert result.is_error and "(it was replaced by another file)" in result.output
    assert file.read_text() == SAMPLE


async def test_unchanged_result_is_not_written(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    before = file.stat().st_mtime_ns
    result = await run(tmp_path, "a.txt", {"old_text": "alpha", "new_text": "alpha"})
    assert not result.is_error
    assert result.output.endswith("(no changes: the file already has this content)")
    assert file.stat().st_mtime_ns == before


async def test_abort_during_the_write_still_reports_it(tmp_path: Path) -> None:
    file = write(tmp_path, "a.txt", SAMPLE)
    task = asyncio.ensure_future(
        edit_file_at(SandboxRoot(tmp_path), "a.txt", [{"old_text": "alpha", "new_text": "A"}])
    )
    await asyncio.sleep(0)
    task.cancel()
    try:
        result = await task
    except asyncio.CancelledError:
        assert file.read_text() == SAMPLE  # stopped before the write started
    else:
        assert not result.is_error and file.read_text().startswith("A one")


# ── the diff ────────────────────────────────────────────────────────────────


async def test_diff_of_an_insertion_marks_only_new_lines(tmp_path: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 21))
    write(tmp_path, "a.txt", text)
    result = await run(
        tmp_path, "a.txt", {"op": "prepend", "pos": anchor(text, 10), "lines": ["new"]}
    )
    diff = result.output.split("<diff>\n")[1].split("</diff>")[0]
    assert [row[:2] for row in diff.splitlines()].count("+ ") == 1
    assert "- " not in [row[:2] for row in diff.splitlines()]
    assert f"+ 10#{line_hash('new', 10)}:new" in diff
    assert f"  11#{line_hash('line 10', 11)}:line 10" in diff
    assert len(diff.splitlines()) == 7  # three lines of context each side


async def test_distant_edits_are_separate_hunks(tmp_path: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 41))
    write(tmp_path, "a.txt", text)
    result = await run(
        tmp_path,
        "a.txt",
        {"op": "replace", "pos": anchor(text, 2), "lines": ["two"]},
        {"op": "replace", "pos": anchor(text, 35), "lines": ["thirty-five"]},
    )
    diff = result.output.split("<diff>\n")[1].split("</diff>")[0]
    assert "\n  ...\n" in diff
    anchors = result.output.split("<fresh-anchors>\n")[1].split("</fresh-anchors>")[0]
    assert "  ...\n" in anchors
    assert "line 20" not in anchors


# ── registration and settings ───────────────────────────────────────────────


def test_plugin_registers_edit_file_and_the_tools_section() -> None:
    from rho_kernel.plugins import PluginHost
    from rho_tools_fs import plugin
    from rho_tools_fs.config import ToolsConfig

    host = PluginHost(autoload=False, report=lambda message: None)
    assert host.register(plugin, "rho-tools-fs")
    tools = [
        tool for _, tool in host.collect("rho_register_tools", config=RhoConfig(), root=Path("."))
    ]
    assert edit_file in [getattr(tool, "target", tool) for tool in tools]
    names = [tool.name for tool in tools]
    assert names.index("write_file") < names.index("edit_file")
    assert plugin.rho_register_config_sections() == {"tools": ToolsConfig}


def test_settings_default_without_the_section() -> None:
    from rho_tools_fs.edit_file import edit_settings

    settings = edit_settings(ctx(Path(".")))
    assert settings.syntax_check is True and settings.reject_syntax_errors is False
