"""Private keys in part of a file: no tool that shows file lines shows a key's body.

A read with an offset, a search match or an edit's context can show the base64 body of a
key without its BEGIN and END lines; each tool judges on the whole file. Every case asserts
that no body line of the key appears in the tool's own output (before the loop's redactor).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RedactionConfig, RhoConfig
from rho_kernel.security import REDACTED, SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.batch_read import batch_read
from rho_tools_fs.edit_file import edit_file
from rho_tools_fs.read_file import read_file
from rho_tools_fs.search_files import search_files

BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
    "Q2xvc2luZ0xpbmVPZlRoZUtleQ==",
]
KINDS = ["RSA", "EC", "OPENSSH", "ENCRYPTED"]


def key_text(kind: str = "RSA", eol: str = "\n", *, end: bool = True) -> str:
    label = f"-----BEGIN {kind} PRIVATE KEY-----"
    lines = [label, *BODY] + ([label.replace("BEGIN", "END")] if end else [])
    return eol.join(lines) + eol


def ctx(root: Path, *, enabled: bool = True) -> ToolContext:
    config = RhoConfig(redaction=RedactionConfig(enabled=enabled))
    return ToolContext(root=SandboxRoot(root), config=config, cancel=CancelToken())


def assert_no_body(output: str) -> None:
    for line in BODY:
        assert line not in output
        assert line[:24] not in output  # nor a cut part of it


async def read(root: Path, **args: Any) -> str:
    result = await read_file.execute(dict(args), ctx(root))
    assert not result.is_error, result.output
    return result.output


# ── read_file ───────────────────────────────────────────────────────────────


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
async def test_read_file_ranges_never_show_a_key_body(tmp_path: Path, kind: str, eol: str) -> None:
    (tmp_path / "id_rsa").write_bytes(key_text(kind, eol).encode())
    for hashline in (True, False):
        for offset, limit in [(2, 1), (2, 4), (5, 1), (3, None), (1, 1), (6, 1)]:
            args: dict[str, Any] = {"path": "id_rsa", "hashline": hashline, "offset": offset}
            if limit is not None:
                args["limit"] = limit
            output = await read(tmp_path, **args)
            assert_no_body(output)
            assert REDACTED in output, args


async def test_read_file_hides_a_key_inside_a_larger_file_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    text = "name: app\nkey: |\n" + "".join(
        "  " + line + "\n" for line in key_text().split("\n")[:-1]
    )
    text += "port: 8080\n"
    (tmp_path / "config.yaml").write_text(text)
    output = await read(tmp_path, path="config.yaml", offset=4, limit=5)
    assert_no_body(output)
    assert output.count(REDACTED) == 5
    assert "#" in output.split("\n")[1]  # the anchor of a hidden row is kept
    whole = await read(tmp_path, path="config.yaml", hashline=False)
    assert_no_body(whole)
    assert "name: app" in whole and "port: 8080" in whole


async def test_read_file_unterminated_block_and_begin_line_alone(tmp_path: Path) -> None:
    (tmp_path / "cut.pem").write_text("intro\n" + key_text("OPENSSH", end=False) + "after\n")
    for offset in (2, 3, 6, 7):
        output = await read(tmp_path, path="cut.pem", offset=offset, limit=1)
        assert_no_body(output)
        assert "after" not in output
    first = await read(tmp_path, path="cut.pem", offset=1, limit=1)
    assert "intro" in first


async def test_redaction_off_shows_the_file_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "id_rsa").write_text(key_text())
    result = await read_file.execute({"path": "id_rsa", "offset": 2}, ctx(tmp_path, enabled=False))
    assert BODY[0] in result.output


# ── batch_read ──────────────────────────────────────────────────────────────


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("end", [True, False])
async def test_batch_read_hides_key_lines(tmp_path: Path, kind: str, end: bool) -> None:
    (tmp_path / "k.pem").write_text("before\n" + key_text(kind, end=end) + "after\n")
    (tmp_path / "plain.txt").write_text("hello\n")
    result = await batch_read.execute({"paths": ["k.pem", "plain.txt"]}, ctx(tmp_path))
    assert_no_body(result.output)
    assert "before" in result.output and "hello" in result.output
    assert ("after" in result.output) is end


# ── search_files ────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "pattern", ["^[A-Za-z0-9+/=]{16,}", "MII", "==", "[a-z]", "PRIVATE KEY", "."]
)
async def test_search_never_shows_a_key_body(tmp_path: Path, engine: str, pattern: str) -> None:
    # Every kind of key with either line ending, each in its own file of one project: one
    # search (one ripgrep run) judges each file on its own, as it would one file alone.
    keys = [f"id_{kind}_{name}" for kind in KINDS for name in ("lf", "crlf")]
    for kind in KINDS:
        for eol, name in (("\n", "lf"), ("\r\n", "crlf")):
            (tmp_path / f"id_{kind}_{name}").write_bytes(key_text(kind, eol).encode())
    (tmp_path / "notes.txt").write_text("MII is a note ==\nabc\n")
    result = await search_files.execute({"pattern": pattern}, ctx(tmp_path))
    assert_no_body(result.output)
    for key in keys:
        assert f"{key}:" not in result.output  # a match on a key line is left out
    found_note = any(re.search(pattern, line) for line in ("MII is a note ==", "abc"))
    assert ("notes.txt:" in result.output) is found_note  # the search did look


async def test_search_hides_only_the_key_lines_of_a_larger_file(
    tmp_path: Path, engine: str
) -> None:
    text = "token_name = 'x'\n" + key_text("EC", end=False) + "more\n"
    (tmp_path / "src.py").write_text(text)
    result = await search_files.execute({"pattern": "[a-zA-Z]"}, ctx(tmp_path))
    assert_no_body(result.output)
    assert "src.py:1: token_name = 'x'" in result.output
    assert "more" not in result.output  # after a BEGIN without END: still the key


# ── edit_file ───────────────────────────────────────────────────────────────


async def edit(root: Path, edits: list[dict[str, Any]], path: str = "k.pem") -> str:
    result = await edit_file.execute({"path": path, "edits": edits}, ctx(root))
    return result.output


async def test_edit_diff_and_fresh_anchors_hide_key_lines(tmp_path: Path) -> None:
    (tmp_path / "k.pem").write_text("title\n" + key_text() + "tail\n")
    output = await edit(tmp_path, [{"old_text": "tail", "new_text": "TAIL"}])
    assert "TAIL" in output
    assert_no_body(output)
    assert REDACTED in output


@pytest.mark.parametrize("line", [1, 2, 3])
async def test_removing_the_begin_line_shows_no_body_in_the_result(
    tmp_path: Path, line: int
) -> None:
    (tmp_path / "k.pem").write_text("title\n" + key_text("OPENSSH") + "tail\n")
    rows = (await read(tmp_path, path="k.pem")).split("\n")[1:-1]
    anchor = rows[line].split(":", 1)[0].strip()
    output = await edit(tmp_path, [{"op": "delete", "pos": anchor}])
    assert "applied" in output
    assert_no_body(output)


async def test_hash_mismatch_error_hides_key_lines(tmp_path: Path) -> None:
    (tmp_path / "k.pem").write_text("title\n" + key_text() + "tail\n")
    output = await edit(tmp_path, [{"op": "replace", "pos": "3#ZZZZ", "lines": ["x"]}])
    assert "hash mismatch" in output
    assert_no_body(output)
    assert REDACTED in output


def test_a_matched_file_that_cannot_be_read_again_has_its_lines_left_out(tmp_path: Path) -> None:
    from rho_tools_fs.key_lines import Match, visible_matches

    (tmp_path / "plain.txt").write_text("a\nb\n")
    (tmp_path / "k.pem").write_text(key_text())
    (tmp_path / "link").symlink_to(tmp_path.parent)  # leads outside: refused by the sandbox
    matches = [
        Match("plain.txt", 1, "a"),
        Match("gone.txt", 1, BODY[0]),
        Match("link", 1, BODY[1]),
        Match("k.pem", 2, BODY[0]),
        Match("k.pem", 1, "-----BEGIN RSA PRIVATE KEY-----"),
    ]
    shown = visible_matches(SandboxRoot(tmp_path), ctx(tmp_path).key_block_lines, matches)
    assert shown == [Match("plain.txt", 1, "a")]
