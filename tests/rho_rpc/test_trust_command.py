"""`rho trust` in process: messages, exit codes and escaping (the e2e suite runs the binary)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.security import TrustStore
from rho_rpc.trust_command import main


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def _project(base: Path, text: str, name: str = "proj") -> Path:
    root = base / name
    (root / ".rho").mkdir(parents=True)
    (root / ".rho" / "config.toml").write_text(text)
    return root


def test_in_home_it_refuses_and_points_at_root(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([], home=home, cwd=home) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("rho: error: ") and "--root" in captured.err


def test_root_must_be_a_directory(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(tmp_path / "missing")], home=home) == 2
    assert "not a directory" in capsys.readouterr().err


def test_trusting_twice_says_already_and_names_no_settings(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, "[agent]\nmax_iterations = 3\n")
    assert main(["--root", str(root)], home=home) == 0
    first = capsys.readouterr().out
    assert first.startswith(f"trusted {root.resolve()}/.rho/config.toml (sha256 ")
    assert "it has no settings that need trust" in first
    assert main([], home=home, cwd=root) == 0
    assert capsys.readouterr().out.startswith("already trusted ")
    assert len(TrustStore.load(home).entries) == 1


def test_revoking_an_untrusted_project_says_so(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, "")
    assert main(["--revoke", "--root", str(root)], home=home) == 0
    assert capsys.readouterr().out == f"{root.resolve()} was not trusted\n"


def test_control_characters_in_paths_and_keys_are_escaped(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(
        tmp_path, '[approval.per_tool]\n"x\\u001b[2J" = "auto"\n', name="evil\x1b[31m\nname"
    )
    assert main(["--root", str(root)], home=home) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "evil\\x1b[31m\\nname" in out
    assert 'approval.per_tool."x\\u001b[2J" = "auto"' in out
    assert main(["--list"], home=home) == 0
    assert "\x1b" not in capsys.readouterr().out


def test_unwritable_store_is_a_clear_error(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, "")
    (home / ".rho").write_text("a file where the directory should be")
    assert main(["--root", str(root)], home=home) == 1
    err = capsys.readouterr().err
    assert (
        err == f"rho: error: {home / '.rho'} is not a plain directory; nothing is written there\n"
    )


def test_settings_of_plugin_sections_are_listed(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # [extensions] belongs to the rho-ext-js plugin: trust still names what it would apply.
    root = _project(tmp_path, '[extensions]\nenabled = ["docs"]\n[memory]\nenabled = true\n')
    assert main(["--root", str(root)], home=home) == 0
    assert 'settings that now apply:\n  extensions.enabled = ["docs"]\n' in capsys.readouterr().out


def test_an_invalid_plugin_section_is_not_trusted(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, '[memory]\nenabled = "yes"\n')
    assert main(["--root", str(root)], home=home) == 2
    err = capsys.readouterr().err
    assert err.startswith("rho: error: ") and "memory.enabled: expected true or false" in err
    assert not TrustStore.load(home).entries


def test_files_the_plugins_name_are_trusted_too(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = (tmp_path / "proj").resolve()
    extensions = root / ".rho" / "extensions"
    (extensions / "docs").mkdir(parents=True)
    (extensions / "hello.ts").write_text("export default { name: 'hello' };\n")
    (extensions / "docs" / "mod.ts").write_text("export default { name: 'docs' };\n")
    (extensions / ".hidden.ts").write_text("x")
    outside = tmp_path / "outside.ts"
    outside.write_text("x")
    (extensions / "linked.ts").symlink_to(outside)
    assert main(["--root", str(root)], home=home) == 0
    out = capsys.readouterr().out
    assert f"trusted rho-ext-js file {root}/.rho/extensions/hello.ts (sha256 " in out
    assert f"trusted rho-ext-js file {root}/.rho/extensions/docs/mod.ts (sha256 " in out
    assert "hidden" not in out and "linked" not in out
    store = TrustStore.load(home)
    assert store.is_trusted(
        root, ".rho/extensions/hello.ts", b"export default { name: 'hello' };\n"
    )
    assert not store.is_trusted(root, ".rho/extensions/hello.ts", b"changed")


def test_fifos_and_deep_nesting_are_refused_never_waited_on(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    root = _project(tmp_path, "[agent]\nmax_iterations = 5\n")
    assert main(["--root", str(root)], home=home) == 0
    config = root / ".rho" / "config.toml"
    config.unlink()
    os.mkfifo(config)
    capsys.readouterr()
    assert main(["--list"], home=home) == 0  # hashing the trusted file must not wait
    assert f"{config}  sha256 " in (out := capsys.readouterr().out) and "(unreadable)" in out
    assert main(["--root", str(root)], home=home) == 1
    assert "is a FIFO, not a regular file" in capsys.readouterr().err
    config.unlink()
    config.write_text("a = " + "[" * 3000 + "]" * 3000 + "\n")
    assert main(["--root", str(root)], home=home) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rho: error: {config}: invalid TOML: ") and "nested" in err


def test_the_state_directory_is_refused(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = home / ".rho" / "sessions"
    state.mkdir(parents=True)
    for argv, cwd in (([], state), (["--root", str(home / ".rho")], home)):
        assert main(argv, home=home, cwd=cwd) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "rho's own state directory" in captured.err
    assert not (home / ".rho" / "trusted_projects.toml").exists()
