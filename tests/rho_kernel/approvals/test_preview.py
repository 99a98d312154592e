"""A preview is a unified diff of exactly the change: applied to the old text by its hunk
headers, it gives the new text; it is bounded for the approver."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_kernel.approvals.preview import (
    ABSENT,
    MAX_PREVIEW_LINES,
    fingerprint,
    unified_preview,
)

_LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "\n"]), max_size=40)


def _apply(diff: str, old: list[str]) -> list[str]:
    """`old` with the hunks of `diff` applied where their headers say (checking context)."""
    lines = diff.splitlines(keepends=True)[2:]
    result: list[str] = []
    position = 0
    index = 0
    while index < len(lines):
        header = lines[index]
        assert header.startswith("@@ "), header
        start = int(header.split(" ")[1][1:].split(",")[0])
        count = header.split(" ")[1].partition(",")[2]
        start = start - 1 if count != "0" else start
        result += old[position:start]
        position = start
        index += 1
        while index < len(lines) and not lines[index].startswith("@@ "):
            kind, text = lines[index][0], lines[index][1:]
            if kind in " -":
                assert old[position] == text
                position += 1
            if kind in " +":
                result.append(text)
            index += 1
    return result + old[position:]


@settings(max_examples=400, deadline=None)
@given(old=_LINES, new=_LINES)
def test_the_preview_applied_to_the_old_text_gives_the_new(old: list[str], new: list[str]) -> None:
    diff = unified_preview("f.txt", "".join(old), "".join(new))
    if old == new:
        assert diff == ""
        return
    assert diff.startswith("--- a/f.txt\n+++ b/f.txt\n@@ ")
    assert _apply(diff, old) == new


def test_a_new_file_and_a_missing_final_newline() -> None:
    assert unified_preview("n.txt", None, "x\ny") == (
        "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
    )


def test_a_long_diff_is_cut_and_says_how_much_is_left() -> None:
    new = "".join(f"line {n}\n" for n in range(2 * MAX_PREVIEW_LINES))
    shown = unified_preview("big.txt", "", new).splitlines()
    assert len(shown) == MAX_PREVIEW_LINES + 1
    assert shown[-1].startswith("[… ") and shown[-1].endswith(" more diff lines not shown]")


def test_fingerprints_tell_files_apart() -> None:
    assert fingerprint(None) == ABSENT
    assert fingerprint(b"") != ABSENT and fingerprint(b"a") != fingerprint(b"b")


@settings(max_examples=300, deadline=None)
@given(size=st.integers(10, 80), repeated=st.booleans(), data=st.data())
def test_an_edit_in_place_is_shown_as_difflib_shows_it(
    size: int, repeated: bool, data: st.DataObject
) -> None:
    old = [f"line {index % 3 if repeated else index}\n" for index in range(size)]
    changed = data.draw(st.sets(st.integers(0, size - 1), max_size=size // 10))
    new = [line.upper() if index in changed else line for index, line in enumerate(old)]
    diff = unified_preview("f.txt", "".join(old), "".join(new))
    assert _apply(diff, old) == new if changed else diff == ""
    if not repeated:  # distinct lines: difflib aligns them as they stand
        assert diff == "".join(difflib.unified_diff(old, new, "a/f.txt", "b/f.txt", n=3))
