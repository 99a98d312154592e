"""Redacting with the whole file's context: previews, diffs and the two versions of a file
show no secret that a hunk holds without its key line or armour."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from key_texts import body_lines, rsa_key  # type: ignore[import-not-found]

from rho_kernel.config.model import RedactionConfig
from rho_kernel.security import REDACTED, Redactor, known_keys
from rho_kernel.tools import unified_preview

KEY = rsa_key(61)
BODY = body_lines(KEY)
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
GITHUB = "ghp_" + "Zq3" * 12
JSON_OLD = '{\n  "user": "me",\n  "password":\n    "CorrectHorseBattery42",\n  "port": 1\n}\n'


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    known_keys.forget()
    yield
    known_keys.forget()


def _middle_changed(text: str, index: int = 13) -> str:
    lines = text.split("\n")
    lines[index] = lines[index][::-1]
    return "\n".join(lines)


def _assert_no_key(text: str) -> None:
    for line in BODY:
        assert line[:16] not in text and line[-16:] not in text and line[::-1][:16] not in text


def test_a_file_is_redacted_line_for_line() -> None:
    text = "# deploy key\n" + KEY + f"aws_secret = {AWS}\n" + JSON_OLD
    shown = Redactor().redact_file(text)
    assert shown.count("\n") == text.count("\n")
    lines = shown.split("\n")
    assert lines[0] == "# deploy key" and lines[1 : len(BODY) + 3] == [REDACTED] * (len(BODY) + 2)
    assert f"aws_secret = {REDACTED}" in lines and f'    "{REDACTED}",' in lines
    _assert_no_key(shown)


def test_a_preview_changing_a_middle_line_of_a_key_shows_no_key_line() -> None:
    preview = unified_preview("key.pem", KEY, _middle_changed(KEY))
    assert preview.splitlines()[2] == "@@ -11,7 +11,7 @@"
    hunk = preview.splitlines()[3:]
    assert hunk == [f" {REDACTED}"] * 3 + [f"-{REDACTED}", f"+{REDACTED}"] + [f" {REDACTED}"] * 3
    _assert_no_key(preview)


def test_a_preview_keeps_a_secret_hidden_when_its_name_is_removed() -> None:
    new = JSON_OLD.replace('  "password":\n', "")
    preview = unified_preview("cfg.json", JSON_OLD, new)
    assert "CorrectHorseBattery42" not in preview
    assert '-  "password":\n' in preview


def test_a_git_diff_inside_a_key_is_redacted_from_the_whole_files(tmp_path: Path) -> None:
    (tmp_path / "a").write_text(KEY)
    (tmp_path / "b").write_text(_middle_changed(KEY, 9))
    done = subprocess.run(
        ["git", "diff", "--no-index", "--no-color", "a", "b"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"},
    )
    hunk = done.stdout.split("\n@@")[1]
    assert hunk.count("\n-") == 1 and BODY[6] in hunk  # a real diff of a key's line
    assert BODY[4] in hunk.split("\n")[0]  # git's heading is a line above the hunk
    shown = Redactor().redact_diff(done.stdout, KEY, _middle_changed(KEY, 9))
    assert shown.startswith("diff --git a/a b/b\n")
    _assert_no_key(shown)
    assert shown.split("\n")[4] == f"@@ -7,7 +7,7 @@ {REDACTED}"
    assert shown.count(REDACTED) == 9  # the heading and every line of the hunk


def test_two_versions_share_what_each_hides() -> None:
    old = f"token: {GITHUB}\nAWS_SECRET_ACCESS_KEY={AWS}\nx = 1\n"
    new = f"x = 2\n{GITHUB}\n"
    shown_old, shown_new = Redactor().redact_pair(old, new)
    assert shown_old == f"token: {REDACTED}\nAWS_SECRET_ACCESS_KEY={REDACTED}\nx = 1\n"
    assert shown_new == f"x = 2\n{REDACTED}\n"
    json_new = JSON_OLD.replace('  "password":\n', "")
    assert "CorrectHorse" not in Redactor().redact_pair(JSON_OLD, json_new)[1]


def test_lines_the_files_do_not_hold_are_redacted_alone() -> None:
    hunk = f"@@ -3,2 +3,2 @@\n {BODY[4]}\n-{BODY[5]}\n+{BODY[5][::-1]}\n"
    shown = Redactor().redact_diff(hunk, None, None)
    assert shown == f"@@ -3,2 +3,2 @@\n {REDACTED}\n-{REDACTED}\n+{REDACTED}\n"


def test_a_custom_pattern_across_lines_keeps_the_lines() -> None:
    redactor = Redactor([r"(?s)BEGIN-NOTE.*?END-NOTE"])
    text = "a\nBEGIN-NOTE\nsecret\nEND-NOTE\n" + KEY
    shown = redactor.redact_file(text)
    assert shown.count("\n") == text.count("\n")
    _assert_no_key(shown)


def test_disabled_redaction_leaves_previews_and_diffs() -> None:
    redactor = Redactor.from_config(RedactionConfig(enabled=False))
    new = _middle_changed(KEY)
    assert BODY[10] in unified_preview("key.pem", KEY, new, redactor=redactor)
    assert redactor.redact_pair(KEY, new) == (KEY, new)


def test_a_line_hidden_more_in_one_version_is_hidden_as_much_in_both() -> None:
    line = f"db_password = {BODY[7]}"
    old = "-----BEGIN PRIVATE KEY-----\n" + line + "\n-----END PRIVATE KEY-----\n"
    new = line + "\n"
    shown_old, shown_new = Redactor().redact_pair(old, new)
    assert shown_old.split("\n")[1] == REDACTED == shown_new.split("\n")[0]
