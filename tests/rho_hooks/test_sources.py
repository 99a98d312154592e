"""Where hooks come from: whose they are, whether they may run, and Claude Code's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rho_hooks.sources import TRUST_FILES, ConfiguredHook, read_hooks
from rho_kernel.security import TrustStore


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".rho").mkdir(parents=True)
    (path / ".claude").mkdir()
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    (path / ".rho").mkdir(parents=True)
    (path / ".claude").mkdir()
    return path


def _read(root: Path, home: Path) -> tuple[list[ConfiguredHook], list[str]]:
    reports: list[str] = []
    return read_hooks(root, home, reports.append), reports


def _summary(hooks: list[ConfiguredHook]) -> list[tuple[str, str, str, bool]]:
    return [(h.event, h.hook.command, h.origin, h.trusted) for h in hooks]


def _settings(path: Path, hooks: dict[str, Any]) -> bytes:
    data = json.dumps({"permissions": {"allow": []}, "hooks": hooks}).encode()
    path.write_bytes(data)
    return data


def _claude(command: str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def test_the_users_hooks_run_and_a_projects_wait_for_trust(root: Path, home: Path) -> None:
    user = '[[hooks.PreToolUse]]\nmatcher = "Bash"\ncommand = "mine"\ntimeout = 5\n'
    (home / ".rho" / "config.toml").write_text(user)
    project = '[[hooks.Stop]]\ncommand = "theirs"\n[[hooks.PreToolUse]]\ncommand = "also"\n'
    (root / ".rho" / "config.toml").write_text(project)
    hooks, reports = _read(root, home)
    assert _summary(hooks) == [
        ("PreToolUse", "mine", "user", True),
        ("Stop", "theirs", "project", False),
        ("PreToolUse", "also", "project", False),
    ]
    assert (hooks[0].hook.matcher, hooks[0].hook.timeout) == ("Bash", 5.0)
    assert hooks[0].path == home / ".rho" / "config.toml"
    assert hooks[1].path == root / ".rho" / "config.toml"
    assert reports == []

    TrustStore.load(home).trust(root, ".rho/config.toml", project.encode())
    hooks, _ = _read(root, home)
    assert [hook.trusted for hook in hooks] == [True, True, True]

    (root / ".rho" / "config.toml").write_text(project + "# changed\n")
    hooks, _ = _read(root, home)
    assert [hook.trusted for hook in hooks] == [True, False, False]  # a change lapses trust


def test_claude_code_settings_are_read_only_when_turned_on(root: Path, home: Path) -> None:
    _settings(home / ".claude" / "settings.json", {"Stop": [_claude("claude-user")]})
    hooks, reports = _read(root, home)
    assert hooks == [] and reports == []

    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    hooks, _ = _read(root, home)
    assert _summary(hooks) == [("Stop", "claude-user", "claude-user", True)]


def test_a_projects_claude_settings_are_listed_and_run_once_trusted(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    shared = _settings(
        root / ".claude" / "settings.json",
        {"PreToolUse": [_claude("fmt.sh", "Edit|Write", timeout=10)]},
    )
    local = _settings(root / ".claude" / "settings.local.json", {"Stop": [_claude("mine.sh")]})
    hooks, reports = _read(root, home)
    assert _summary(hooks) == [
        ("PreToolUse", "fmt.sh", "claude-project", False),
        ("Stop", "mine.sh", "claude-local", False),
    ]
    assert (hooks[0].hook.matcher, hooks[0].hook.timeout) == ("Edit|Write", 10.0)
    assert hooks[1].path == root / ".claude" / "settings.local.json"
    assert reports == []

    store = TrustStore.load(home)
    store.trust(root, TRUST_FILES[0], shared)
    hooks, _ = _read(root, home)
    assert [hook.trusted for hook in hooks] == [True, False]
    store.trust(root, TRUST_FILES[1], local)
    hooks, _ = _read(root, home)
    assert [hook.trusted for hook in hooks] == [True, True]


def test_a_project_turns_claude_settings_on_only_while_trusted(root: Path, home: Path) -> None:
    project = "[hooks]\nclaude_settings = true\n"
    (root / ".rho" / "config.toml").write_text(project)
    _settings(home / ".claude" / "settings.json", {"Stop": [_claude("claude-user")]})
    hooks, _ = _read(root, home)
    assert hooks == []
    TrustStore.load(home).trust(root, ".rho/config.toml", project.encode())
    hooks, _ = _read(root, home)
    assert _summary(hooks) == [("Stop", "claude-user", "claude-user", True)]


def test_a_project_may_turn_claude_settings_off_untrusted(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    (root / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = false\n")
    _settings(home / ".claude" / "settings.json", {"Stop": [_claude("claude-user")]})
    hooks, _ = _read(root, home)
    assert hooks == []


def test_claude_codes_format_is_read_and_what_rho_cannot_run_is_reported(
    root: Path, home: Path
) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    path = home / ".claude" / "settings.json"
    _settings(
        path,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "a"},
                        {"type": "prompt", "prompt": "is this safe?"},
                        {"type": "command", "command": "b", "timeout": 99999},
                        {"type": "command"},
                        "c",
                    ],
                },
                {"matcher": "(", "hooks": [{"type": "command", "command": "d"}]},
                {"matcher": "*", "hooks": "e"},
                {"hooks": [{"type": "command", "command": "f"}]},
            ],
            "SubagentStop": [_claude("g")],
            "Stop": "h",
            "Notification": [{"matcher": None, "hooks": [{"type": "command", "command": "i"}]}],
        },
    )
    hooks, reports = _read(root, home)
    assert [(h.event, h.hook.command, h.hook.matcher) for h in hooks] == [
        ("PreToolUse", "a", "Bash"),
        ("PreToolUse", "f", ""),
        ("Notification", "i", ""),
    ]
    expected = [
        "hook hooks.PreToolUse[0].hooks[1] skipped: type 'prompt'",
        "hook hooks.PreToolUse[0].hooks[2] skipped: timeout",
        "hook hooks.PreToolUse[0].hooks[3] skipped: command: Field required",
        "hook hooks.PreToolUse[0].hooks[4] skipped: not a command hook",
        "hook hooks.PreToolUse[1].hooks[0] skipped: matcher '(' is not a regular expression",
        "hooks.PreToolUse[2] skipped: not an object with a `hooks` list",
        "hooks.SubagentStop skipped: rho has no such event",
        "hooks.Stop skipped: not a list of matchers",
    ]
    assert len(reports) == len(expected)
    for report, words in zip(reports, expected, strict=True):
        assert report.startswith(f"{path}: ") and words in report


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{not json", "hooks not read: not JSON"),
        (b"[]", "hooks not read: not a JSON object"),
        (b'{"hooks": []}', "hooks not read: `hooks` is not an object"),
        (b"\xff\xfe", "hooks not read: not JSON"),
    ],
)
def test_a_settings_file_rho_cannot_read_is_reported(
    root: Path, home: Path, content: bytes, words: str
) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    (root / ".claude" / "settings.json").write_bytes(content)
    hooks, reports = _read(root, home)
    assert hooks == []
    assert len(reports) == 1 and reports[0].startswith(str(root / ".claude" / "settings.json"))
    assert words in reports[0]


def test_settings_without_hooks_are_no_problem(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    (home / ".claude" / "settings.json").write_text('{"model": "x"}')
    assert _read(root, home) == ([], [])


def test_a_project_settings_file_that_is_a_link_is_not_read(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    elsewhere = root.parent / "elsewhere.json"
    _settings(elsewhere, {"Stop": [_claude("linked")]})
    (root / ".claude" / "settings.json").symlink_to(elsewhere)
    hooks, reports = _read(root, home)
    assert hooks == []
    assert reports == [
        f"{root / '.claude' / 'settings.json'}: hooks not read: it is a symbolic link "
        "(rho reads only a file)"
    ]


def test_a_project_claude_folder_that_is_a_link_is_not_read(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").write_text("[hooks]\nclaude_settings = true\n")
    (root / ".claude").rmdir()
    (root.parent / "other").mkdir()
    _settings(root.parent / "other" / "settings.json", {"Stop": [_claude("linked")]})
    (root / ".claude").symlink_to(root.parent / "other")
    hooks, reports = _read(root, home)
    assert hooks == [] and len(reports) == 1 and "symbolic link" in reports[0]


def test_wrong_entries_of_a_config_file_are_reported_and_skipped(root: Path, home: Path) -> None:
    path = home / ".rho" / "config.toml"
    path.write_text(
        "[hooks]\nPreToolUse = 3\n"
        '[[hooks.Stop]]\ncommand = "ok"\n'
        '[[hooks.Stop]]\ncommand = "x"\nmatcher = "["\n'
        '[[hooks.Stop]]\ncommnd = "typo"\n'
        '[[hooks.SubagentStop]]\ncommand = "y"\n'
    )
    hooks, reports = _read(root, home)
    assert _summary(hooks) == [("Stop", "ok", "user", True)]
    expected = [
        "hooks.PreToolUse skipped: write it as [[hooks.PreToolUse]] tables",
        "hook hooks.Stop[1] skipped: matcher '[' is not a regular expression",
        "hook hooks.Stop[2] skipped: command: Field required; commnd: Extra inputs",
        "hooks.SubagentStop skipped: not a hook event",
    ]
    assert len(reports) == len(expected)
    for report, words in zip(reports, expected, strict=True):
        assert report.startswith(f"{path}: ") and words in report


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"[hooks\n", "hooks not read: "),
        (b"hooks = 3\n", "hooks not read: `hooks` is not a table"),
        (b"\xff", "hooks not read: "),
    ],
)
def test_a_config_file_rho_cannot_read_is_reported(
    root: Path, home: Path, content: bytes, words: str
) -> None:
    (root / ".rho" / "config.toml").write_bytes(content)
    hooks, reports = _read(root, home)
    assert hooks == [] and len(reports) == 1 and words in reports[0]


def test_a_file_that_is_not_a_regular_file_is_reported(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").mkdir()
    hooks, reports = _read(root, home)
    assert hooks == []
    assert len(reports) == 1 and "not a regular file" in reports[0]


def test_a_project_at_home_is_read_once(home: Path) -> None:
    (home / ".rho" / "config.toml").write_text(
        '[hooks]\nclaude_settings = true\n[[hooks.Stop]]\ncommand = "mine"\n'
    )
    _settings(home / ".claude" / "settings.json", {"Stop": [_claude("claude")]})
    hooks, reports = _read(home, home)
    assert _summary(hooks) == [
        ("Stop", "mine", "user", True),
        ("Stop", "claude", "claude-user", True),
    ]
    assert reports == []


def test_a_malformed_trust_store_is_reported_and_trusts_nothing(root: Path, home: Path) -> None:
    project = '[[hooks.Stop]]\ncommand = "theirs"\n'
    (root / ".rho" / "config.toml").write_text(project)
    TrustStore.load(home).trust(root, ".rho/config.toml", project.encode())
    TrustStore.load(home).path.write_text("not = [toml")
    hooks, reports = _read(root, home)
    assert _summary(hooks) == [("Stop", "theirs", "project", False)]
    assert len(reports) == 1 and "trust store is ignored" in reports[0]


def test_the_files_to_trust_are_claude_codes_project_settings() -> None:
    assert TRUST_FILES == (".claude/settings.json", ".claude/settings.local.json")
