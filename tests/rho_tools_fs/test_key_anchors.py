"""Anchors of private-key lines: derived from what is shown, never from the hidden content.

A line inside a private key block is shown as `{n}#{HASH}:[REDACTED]`. If HASH were the real
line's hash, each hidden line would still give away 16 bits of the key, and edit_file's
answers (exact, relocated, refused, with the current anchors) would let a model probe the
real hash with guessed anchors. The central check here: two files that differ only in the
body of their key give byte-identical answers, to every read and to every edit, whatever the
anchors tried; and an edit by the shown anchor still works.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RedactionConfig, RhoConfig
from rho_kernel.security import REDACTED, KeyBlockLines, SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.batch_read import batch_read
from rho_tools_fs.edit_file import edit_file
from rho_tools_fs.hashline import line_hash
from rho_tools_fs.read_file import read_file
from rho_tools_fs.search_files import search_files

ALPHABET = "ZPMQVRWSNKTXJBYH"
BODY_A = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
    "Q2xvc2luZ0xpbmVPZlRoZUtleQ==",
]
# Another key of the same shape: every character moved on by one in its class.
_SHIFT = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "BCDEFGHIJKLMNOPQRSTUVWXYZAbcdefghijklmnopqrstuvwxyza1234567890",
)
BODY_B = [line.translate(_SHIFT) for line in BODY_A]
# Line numbers in `document`: 1 title, 2 BEGIN, 3-6 body, 7 END, 8 tail, 9 end.
KEY_LINES = range(2, 8)
BODY_LINES = range(3, 7)


def number_hash(line_no: int) -> str:
    """The number-seeded hash, spelled independently of the code under test."""
    seed = line_no % 2**16
    return "".join(ALPHABET[(seed >> shift) % 16] for shift in (0, 4, 8, 12))


def document(body: list[str], kind: str = "RSA", eol: str = "\n", *, end: bool = True) -> str:
    label = f"-----BEGIN {kind} PRIVATE KEY-----"
    key = [label, *body] + ([label.replace("BEGIN", "END")] if end else [])
    return eol.join(["title", *key, "    tail = 1", "end"]) + eol


def ctx(root: Path, *, enabled: bool = True) -> ToolContext:
    config = RhoConfig(redaction=RedactionConfig(enabled=enabled))
    return ToolContext(root=SandboxRoot(root), config=config, cancel=CancelToken())


def real_hashes(body: list[str]) -> set[str]:
    """The real hashes of the key's lines (as `n#HASH`), which no output may show."""
    lines = document(body).split("\n")
    return {f"{n}#{line_hash(lines[n - 1], n)}" for n in KEY_LINES}


def assert_no_real_hash(output: str, body: list[str], given: str = "") -> None:
    """No real hash of a key line in `output`, except as an echo of the anchors in `given`."""
    shown = set(re.findall(r"(\d+)#([A-Z]{4})", output)) - set(
        re.findall(r"(\d+)#([A-Z]{4})", given)
    )
    for anchor in real_hashes(body):
        number, hashed = anchor.split("#")
        if hashed != number_hash(int(number)):  # a real hash may equal the shown one by chance
            assert (number, hashed) not in shown, anchor


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path]:
    """Two projects whose `k.pem` differ only in the key's body."""
    a, b = tmp_path / "a", tmp_path / "b"
    for root, body in ((a, BODY_A), (b, BODY_B)):
        root.mkdir()
        (root / "k.pem").write_text(document(body))
    return a, b


async def run(root: Path, tool: Any, args: dict[str, Any], *, enabled: bool = True) -> str:
    result = await tool.execute(dict(args), ctx(root, enabled=enabled))
    return ("ERROR " if result.is_error else "") + result.output


# ── reads ───────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("kind", ["RSA", "OPENSSH", "ENCRYPTED"])
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize("end", [True, False])
async def test_reads_of_two_keys_are_identical(
    tmp_path: Path, kind: str, eol: str, end: bool
) -> None:
    roots = []
    for body in (BODY_A, BODY_B):
        root = tmp_path / body[0][:4]
        root.mkdir()
        (root / "k.pem").write_bytes(document(body, kind, eol, end=end).encode())
        roots.append(root)
    for offset, limit in [(1, None), (3, 1), (2, 4), (5, None), (6, 2)]:
        outputs = []
        for root, body in zip(roots, (BODY_A, BODY_B), strict=True):
            args: dict[str, Any] = {"path": "k.pem", "offset": offset}
            if limit is not None:
                args["limit"] = limit
            output = await run(root, read_file, args)
            assert_no_real_hash(output, body)
            outputs.append(output)
            outputs.append(await run(root, batch_read, {"paths": ["k.pem"]}))
        assert outputs[0] == outputs[2], (offset, limit)
        assert outputs[1] == outputs[3], (offset, limit)


async def test_a_hidden_row_shows_its_number_hash_and_the_rest_real_ones(
    twins: tuple[Path, Path],
) -> None:
    output = await run(twins[0], read_file, {"path": "k.pem"})
    rows = output.split("\n")[1:-1]
    for number in KEY_LINES:
        assert rows[number - 1] == f"{number}#{number_hash(number)}:{REDACTED}"
    assert rows[0] == f"1#{line_hash('title', 1)}:title"
    assert rows[7] == f"8#{line_hash('    tail = 1', 8)}:    tail = 1"


async def test_with_redaction_off_rows_keep_their_real_hashes(twins: tuple[Path, Path]) -> None:
    output = await run(twins[0], read_file, {"path": "k.pem", "offset": 3}, enabled=False)
    assert f"3#{line_hash(BODY_A[0], 3)}:{BODY_A[0]}" in output


# ── edits ───────────────────────────────────────────────────────────────────


def probes() -> list[str]:
    """Hashes a model might try on a key line: the shown one, both keys' real ones, junk."""
    lines_a, lines_b = document(BODY_A).split("\n"), document(BODY_B).split("\n")
    found = {"ZZZZ", "QXKV"}
    for number in KEY_LINES:
        found |= {number_hash(number), line_hash(lines_a[number - 1], number)}
        found.add(line_hash(lines_b[number - 1], number))
    return sorted(found)


async def edit_twins(twins: tuple[Path, Path], edits: list[dict[str, Any]]) -> list[str]:
    """The edit's output in both projects (equal, and showing no real hash)."""
    outputs = [await run(root, edit_file, {"path": "k.pem", "edits": edits}) for root in twins]
    assert outputs[0] == outputs[1]
    for output, body in zip(outputs, (BODY_A, BODY_B), strict=True):
        assert_no_real_hash(output, body, repr(edits))
        for line in body:
            assert line[:16] not in output or line[:16] in repr(edits)  # no echo of old_text
    return outputs


@pytest.mark.parametrize("number", [1, *KEY_LINES, 8])
async def test_every_probe_of_a_key_line_answers_the_same_for_both_keys(
    twins: tuple[Path, Path], number: int
) -> None:
    for hashed in probes():
        for root, body in zip(twins, (BODY_A, BODY_B), strict=True):
            (root / "k.pem").write_text(document(body))  # a probe that applied changed the file
        edits = [{"op": "replace", "pos": f"{number}#{hashed}", "lines": ["probe"]}]
        outputs = await edit_twins(twins, edits)
        if number in KEY_LINES:  # exact only by the shown hash, never relocated onto it
            assert outputs[0].startswith("applied") is (hashed == number_hash(number))
            assert "resolved to" not in outputs[0]


@pytest.mark.parametrize("op", ["replace", "append", "prepend", "delete"])
@pytest.mark.parametrize("number", list(BODY_LINES))
async def test_a_key_line_is_edited_by_its_shown_anchor(
    twins: tuple[Path, Path], op: str, number: int
) -> None:
    edit: dict[str, Any] = {"op": op, "pos": f"{number}#{number_hash(number)}"}
    if op != "delete":
        edit["lines"] = ["NEWLINE"]
    output = (await edit_twins(twins, [edit]))[0]
    assert output.startswith("applied 1 hashline edit(s) to k.pem\n<diff>"), output
    lines = (twins[0] / "k.pem").read_text().split("\n")
    index = number - 1
    expected = {
        "replace": lambda: lines[index] == "NEWLINE",
        "append": lambda: lines[index + 1] == "NEWLINE",
        "prepend": lambda: lines[index] == "NEWLINE",
        "delete": lambda: BODY_A[number - 3] not in lines,
    }[op]
    assert expected()
    assert "NEWLINE" not in output  # still inside the key: shown as [REDACTED]
    assert f"- {number}#{number_hash(number)}:{REDACTED}" in output or op in ("append", "prepend")


async def test_a_range_between_shown_anchors_is_replaced(twins: tuple[Path, Path]) -> None:
    edit = {"op": "replace", "pos": f"3#{number_hash(3)}", "end": f"6#{number_hash(6)}"}
    output = (await edit_twins(twins, [{**edit, "lines": ["AAAA", "BBBB"]}]))[0]
    assert output.startswith("applied"), output
    assert (twins[1] / "k.pem").read_text() == document(["AAAA", "BBBB"])
    for number in BODY_LINES:
        assert f"- {number}#{number_hash(number)}:{REDACTED}" in output
    for number in (3, 4):
        assert f"+ {number}#{number_hash(number)}:{REDACTED}" in output


async def test_a_mismatch_on_a_key_line_shows_only_shown_anchors(
    twins: tuple[Path, Path],
) -> None:
    output = (await edit_twins(twins, [{"op": "delete", "pos": "4#ZZZZ"}]))[0]
    assert output.startswith("ERROR edit_file: hash mismatch at anchor 4#ZZZZ")
    assert f"Actual line:    4#{number_hash(4)}:{REDACTED}" in output
    assert "Expected line:  4#ZZZZ (not the anchor shown for this hidden line)" in output
    assert "changed since it was read" not in output  # its anchor never depended on it
    assert f"address it by the anchor shown for it, 4#{number_hash(4)}." in output
    assert f"Use updated anchor 4#{number_hash(4)} to retry." in output
    fresh = output.split("Fresh hashes around line 4:\n", 1)[1]
    for number in range(2, 8):
        assert f"{number}#{number_hash(number)}:{REDACTED}" in fresh
    retry = await edit_twins(twins, [{"op": "delete", "pos": f"4#{number_hash(4)}"}])
    assert retry[0].startswith("applied")


@pytest.mark.parametrize("number", [1, 8, 9])
async def test_no_anchor_near_a_key_is_relocated_onto_it(
    twins: tuple[Path, Path], number: int
) -> None:
    """A stale anchor is looked for nearby; key lines are never candidates, by any hash."""
    for hashed in probes():
        for root, body in zip(twins, (BODY_A, BODY_B), strict=True):
            (root / "k.pem").write_text(document(body))  # a probe that applied changed the file
        outputs = await edit_twins(twins, [{"op": "delete", "pos": f"{number}#{hashed}"}])
        assert "resolved to" not in outputs[0]


async def test_a_relocated_anchor_beside_a_key_still_works(twins: tuple[Path, Path]) -> None:
    for root, body in zip(twins, (BODY_A, BODY_B), strict=True):
        (root / "k.pem").write_text("new first\n" + document(body))
    stale = f"8#{line_hash('    tail = 1', 8)}"  # the tail moved down to line 9
    output = (await edit_twins(twins, [{"op": "delete", "pos": stale}]))[0]
    assert f"anchor {stale} resolved to 9#" in output


@pytest.mark.parametrize("number", [2, 7])
async def test_removing_a_marker_shows_the_body_with_number_anchors(
    twins: tuple[Path, Path], number: int
) -> None:
    output = (
        await edit_twins(twins, [{"op": "delete", "pos": f"{number}#{number_hash(number)}"}])
    )[0]
    assert output.startswith("applied"), output
    assert output.count(REDACTED) >= 4


async def test_exact_match_edits_beside_a_key_show_no_real_hash(twins: tuple[Path, Path]) -> None:
    output = (await edit_twins(twins, [{"old_text": "title", "new_text": "TITLE"}]))[0]
    for number in range(2, 5):
        assert f"  {number}#{number_hash(number)}:{REDACTED}" in output


def text_probes() -> list[str]:
    """old_text a model might try to learn a key by: parts of key A, whole lines, markers."""
    first = BODY_A[0]
    found = [first[:4], first[:5], first[:12] + " ", " " + first[-6:], first, first + "\n"]
    found += ["\n" + BODY_A[1], BODY_A[3][-4:], "==\n-----END", "PRIVATE KEY", "-----BEGIN"]
    found += ["title\n-----BEGIN RSA", "KEY-----\n    tail", REDACTED, f"title\n{REDACTED}"]
    return found


@pytest.mark.parametrize("same", [True, False])
async def test_old_text_on_a_key_is_never_found(twins: tuple[Path, Path], same: bool) -> None:
    """Whether old_text is found (or the hint says it is there with other whitespace) never
    depends on a key's lines: an occurrence touching one does not count."""
    for old in text_probes():
        for root, body in zip(twins, (BODY_A, BODY_B), strict=True):
            (root / "k.pem").write_text(document(body))
        new = old if same else "changed"
        output = (await edit_twins(twins, [{"old_text": old, "new_text": new}]))[0]
        assert output.startswith("ERROR edit_file: old_text not found"), (old, output)
        assert "different whitespace" not in output
        if REDACTED in old:
            assert "hashline edit by the anchors" in output


async def test_old_text_beside_a_key_is_found_and_counted_without_it(
    twins: tuple[Path, Path],
) -> None:
    for root, body in zip(twins, (BODY_A, BODY_B), strict=True):
        (root / "k.pem").write_text(document(body) + "RSA PRIVATE KEY\nMIIE\n")
    output = (await edit_twins(twins, [{"old_text": "RSA PRIVATE", "new_text": "x"}]))[0]
    assert output.startswith("applied 1 edit(s) to k.pem"), output
    output = (await edit_twins(twins, [{"old_text": "MII", "new_text": "y"}]))[0]
    assert output.startswith("applied 1 edit(s)"), output
    assert (twins[0] / "k.pem").read_text().endswith("\nx KEY\nyE\n")
    output = (await edit_twins(twins, [{"old_text": "e", "new_text": "z"}]))[0]
    assert "ambiguous (2 matches)" in output and "lines 1, 9;" in output, output
    output = (await edit_twins(twins, [{"old_text": "1\nen", "new_text": "1\nEN"}]))[0]
    assert output.startswith("applied"), output


# ── search ──────────────────────────────────────────────────────────────────

SEARCH_PROBES = [
    "^MIIEo",
    "^MIIEp",
    "^NJJFp",
    "^[A-M]",
    "^[N-Z]",
    "==$",
    "PRIVATE KEY",
    "[0-9]",
    ".",
    "^.{28}$",
]


@pytest.mark.parametrize("pattern", SEARCH_PROBES)
async def test_search_answers_the_same_for_two_keys(
    twins: tuple[Path, Path], engine: str, pattern: str
) -> None:
    """A match on a key line is left out, not shown as `[REDACTED]`: whether a pattern
    matches a hidden line would give the line away a pattern at a time."""
    outputs = [await run(root, search_files, {"pattern": pattern}) for root in twins]
    assert outputs[0] == outputs[1]
    assert "k.pem:2" not in outputs[0] and REDACTED not in outputs[0]
    for number in KEY_LINES:
        assert f"k.pem:{number}:" not in outputs[0]


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
async def test_search_cap_counts_only_shown_matches(
    twins: tuple[Path, Path], engine: str, limit: int
) -> None:
    """Key lines are left out before the cap, so the cut and the count show nothing either."""
    outputs = [
        await run(root, search_files, {"pattern": "[a-zA-Z]", "max_results": limit})
        for root in twins
    ]
    assert outputs[0] == outputs[1]
    shown = [line for line in outputs[0].split("\n") if line.startswith("k.pem:")]
    assert [line.split(":")[1] for line in shown] == ["1", "8", "9"][:limit]
    assert ("more matches truncated" in outputs[0]) is (limit < 3)


# ── the syntax check ────────────────────────────────────────────────────────


@pytest.mark.parametrize("broken", [False, True])
async def test_syntax_warnings_say_nothing_about_key_lines(tmp_path: Path, broken: bool) -> None:
    """Opening a key's string to the parser makes errors on its lines: none is reported (its
    snippet would show the line), while an error on a shown line still is."""
    roots = []
    for body in (BODY_A, BODY_B):
        root = tmp_path / body[0][:4]
        root.mkdir()
        key = document(body).split("\n")[1:7]
        (root / "k.py").write_text('KEY = """\n' + "\n".join(key) + '\n"""\nprint(1)\n')
        roots.append(root)
    quotes = chr(34) * 3
    edits: list[dict[str, Any]] = [
        {"op": "replace", "pos": f"1#{line_hash('KEY = ' + quotes, 1)}", "lines": ["K = 1"]},
        {
            "op": "replace",
            "pos": f"8#{line_hash(quotes, 8)}",
            "lines": ["class :" if broken else ""],
        },
    ]
    outputs = [await run(root, edit_file, {"path": "k.py", "edits": edits}) for root in roots]
    assert outputs[0] == outputs[1]
    for output, body in zip(outputs, (BODY_A, BODY_B), strict=True):
        assert output.startswith("applied 2 hashline edit(s)"), output
        for line in body:
            assert line[:12] not in output
        assert "BEGIN" not in output and "PRIVATE" not in output
    assert ("[warning] syntax: the edit introduces 1 syntax error" in outputs[0]) is broken
    assert "[warning]" in outputs[0] or not broken


# ── the whole hash space ────────────────────────────────────────────────────


def _memoize_line_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compute each line's hash and row once for the whole space: the hashing functions are
    pure (strings and numbers in, strings out), so every answer stays the same, while hashing
    the same few lines again for each of the 131072 answers was most of the time spent."""
    from functools import cache

    from rho_tools_fs import hashline, hashline_edit

    for module, name in [
        (hashline, "hidden_hash"),
        (hashline, "line_hash"),
        (hashline_edit, "line_hash"),
        (hashline_edit, "format_hashline"),
    ]:
        monkeypatch.setattr(module, name, cache(getattr(module, name)))
    hashes_of = cache(lambda lines, first: tuple(hashline.line_hashes(lines, first)))
    monkeypatch.setattr(
        hashline_edit, "line_hashes", lambda lines, first=1: list(hashes_of(tuple(lines), first))
    )
    # Also pure: whether a line is worth relocating to, and the rows around a line of a
    # document that is never changed (the two documents here are only read).
    monkeypatch.setattr(hashline_edit, "_high_information", cache(hashline_edit._high_information))
    rows: dict[tuple[int, int], str] = {}
    fresh_rows = hashline_edit._fresh_rows

    def cached_rows(doc: Any, line: int) -> str:
        key = (id(doc), line)
        if key not in rows:
            rows[key] = fresh_rows(doc, line)
        return rows[key]

    monkeypatch.setattr(hashline_edit, "_fresh_rows", cached_rows)


class _SetBlocks(KeyBlockLines):
    """The same blocks, with `number in blocks` answered from a set of their lines (the
    whole-space check asks it millions of times)."""

    def __init__(self, blocks: KeyBlockLines) -> None:
        super().__init__(blocks.ranges)
        self.lines = frozenset(n for first, last in blocks.ranges for n in range(first, last + 1))

    def __contains__(self, number: object) -> bool:
        return number in self.lines


def _read_only_document(text: str, blocks: KeyBlockLines) -> Any:
    """A `Document` of `text` whose line count, shown lines and shown hashes are worked out
    once each: the whole-space check only reads its documents, asking these again for each
    of the 131072 answers."""
    from functools import cache

    from rho_tools_fs.edit_document import Document

    class ReadOnlyDocument(Document):
        line_count = 0  # a plain attribute here, set once below (a property in `Document`)

        def __post_init__(self) -> None:
            super().__post_init__()
            self.line_count = len(self.lines)
            self.shown_line = cache(super().shown_line)  # type: ignore[method-assign]
            self.shown_hash = cache(super().shown_hash)  # type: ignore[method-assign]

    doc = ReadOnlyDocument(text, blocks)
    plain = Document(text, blocks)
    assert doc.line_count == plain.line_count
    for number in range(1, plain.line_count + 1):
        assert doc.shown_line(number) == plain.shown_line(number)
        assert doc.shown_hash(number) == plain.shown_hash(number)
    return doc


@pytest.mark.parametrize("number", [4, 8])
def test_no_hash_in_the_whole_space_tells_two_keys_apart(
    number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every one of the 65536 hashes at a key line (and at a line beside the key): the same
    answer for both keys; a key line is taken only by its shown hash, never moved onto."""
    from rho_tools_fs.edit_document import EditError
    from rho_tools_fs.hashline_edit import Anchor, resolve

    _memoize_line_hashes(monkeypatch)

    docs = []
    for body in (BODY_A, BODY_B):
        text = document(body)
        blocks = KeyBlockLines.of(text)
        fast = _SetBlocks(blocks)
        assert [n for n in range(1, 12) if n in fast] == [n for n in range(1, 12) if n in blocks]
        docs.append(_read_only_document(text, fast))
    taken = []
    for seed in range(2**16):
        anchor = Anchor(number, number_hash(seed))
        answers: list[object] = []
        for doc in docs:
            try:
                answers.append(resolve(doc, anchor))
            except EditError as exc:
                answers.append(str(exc))
        assert answers[0] == answers[1], anchor
        if isinstance(answers[0], tuple):
            line, note = answers[0]
            assert line not in KEY_LINES or (line == number and note is None), anchor
            if line == number:
                taken.append(anchor.hash)
    assert taken == [number_hash(number) if number in KEY_LINES else line_hash("    tail = 1", 8)]


# ── written lines vs carried lines ──────────────────────────────────────────


@pytest.mark.parametrize("guess", [BODY_A[0], BODY_A[3], "-----END RSA PRIVATE KEY-----"])
async def test_a_written_line_equal_to_a_key_line_is_shown_as_written(
    twins: tuple[Path, Path], guess: str
) -> None:
    """Hiding what the edit wrote when it equals a hidden line would confirm the guess."""
    edits = [
        {"op": "append", "pos": f"1#{line_hash('title', 1)}", "lines": [guess]},
        {"old_text": "    tail = 1", "new_text": guess},
    ]
    output = (await edit_twins(twins, edits))[0]
    assert output.startswith("applied 1 hashline + 1 legacy edit(s)"), output
    assert f"+  2#{line_hash(guess, 2)}:{guess}" in output
    assert f"+  9#{line_hash(guess, 9)}:{guess}" in output


async def test_carried_key_lines_stay_hidden_among_written_ones(twins: tuple[Path, Path]) -> None:
    """BEGIN deleted (the body is no block any more), lines written before, inside and after:
    every line carried over from the key is hidden, every written line shown."""
    edits = [
        {"op": "prepend", "pos": f"1#{line_hash('title', 1)}", "lines": ["top"]},
        {"op": "delete", "pos": f"2#{number_hash(2)}"},
        {"op": "append", "pos": f"4#{number_hash(4)}", "lines": ["mid one", "mid two"]},
        {"op": "replace", "pos": f"8#{line_hash('    tail = 1', 8)}", "lines": ["last"]},
    ]
    output = (await edit_twins(twins, edits))[0]
    fresh = output.split("<fresh-anchors>\n", 1)[1].split("</fresh-anchors>", 1)[0]
    shown = [row.split(":", 1)[1] for row in fresh.rstrip("\n").split("\n")]
    hidden = REDACTED
    assert shown == [
        *("top", "title", hidden, hidden, "mid one", "mid two"),
        *(hidden, hidden, hidden, "last", "end"),
    ]
