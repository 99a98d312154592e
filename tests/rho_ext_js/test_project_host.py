"""`ProjectHost`: each host function confined like a tool, and allowed only as far as the
call that made it (hostile paths, commands and URLs refused with a reason)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_ext_js.calls import IDLE, CallContext
from rho_ext_js.config import ExtensionPermissions
from rho_ext_js.host import HostError
from rho_ext_js.project_host import MAX_READ_BYTES, ProjectHost
from rho_kernel import RhoConfig, Risk, SandboxRoot

WRITER = CallContext("tool", "tool writer", allowed=Risk.WRITE)
RUNNER = CallContext("tool", "tool runner", allowed=Risk.DESTRUCTIVE)


def _host(root: Path, **permissions: object) -> ProjectHost:
    return ProjectHost(
        name="ext",
        root=SandboxRoot(root),
        config=RhoConfig(),
        permissions=ExtensionPermissions(**permissions),  # type: ignore[arg-type]
        extension_root=root / "ext-home",
    )


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/hostname", "link.txt", "missing.txt"])
async def test_reads_outside_the_project_or_missing_are_refused(tmp_path: Path, path: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    with pytest.raises(HostError, match=r"rho\.readFile"):
        await _host(root).read_file(path, IDLE)


async def test_reads_text_inside_allowed_roots_and_refuses_big_or_binary(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    (root / "notes.md").write_text("hello")
    (root / "big.txt").write_bytes(b"x" * (MAX_READ_BYTES + 1))
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00")
    host = _host(root)
    assert await host.read_file("notes.md", IDLE) == "hello"
    assert await host.read_file(str(root / "notes.md"), IDLE) == "hello"
    with pytest.raises(HostError, match="larger than"):
        await host.read_file("big.txt", IDLE)
    with pytest.raises(HostError, match="not UTF-8"):
        await host.read_file("blob.bin", IDLE)


async def test_writes_need_a_writing_call_and_stay_out_of_git_and_rho(tmp_path: Path) -> None:
    host = _host(tmp_path)
    with pytest.raises(HostError, match="not allowed in a timer"):
        await host.write_file("a.txt", "x", IDLE)
    with pytest.raises(HostError, match="not allowed in tool reader"):
        await host.write_file("a.txt", "x", CallContext("tool", "tool reader"))
    await host.write_file("deep/a.txt", "written", WRITER)
    assert (tmp_path / "deep" / "a.txt").read_text() == "written"
    for hostile in (".git/config", ".rho/config.toml", "../escape.txt"):
        with pytest.raises(HostError, match=r"rho\.writeFile"):
            await host.write_file(hostile, "x", WRITER)
    assert not (tmp_path.parent / "escape.txt").exists()


async def test_commands_need_the_permission_a_destructive_call_and_pass_the_policy(
    tmp_path: Path,
) -> None:
    with pytest.raises(HostError, match=r'per_extension."ext"\] commands = true'):
        await _host(tmp_path).run_command("echo", ["hi"], RUNNER)
    host = _host(tmp_path, commands=True)
    with pytest.raises(HostError, match="needs the risk 'destructive'"):
        await host.run_command("echo", ["hi"], WRITER)
    with pytest.raises(HostError, match="command policy"):
        await host.run_command("curl", ["http://example.com"], RUNNER)
    ran = await host.run_command("echo", ["hi; rm -rf /"], RUNNER)  # no shell: one argument
    assert ran == {"stdout": "hi; rm -rf /\n", "stderr": "", "exitCode": 0}


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/", "javascript:1"])
async def test_fetch_needs_the_permission_and_http(tmp_path: Path, url: str) -> None:
    request = {"url": url, "method": "GET", "headers": {}}
    with pytest.raises(HostError, match=r'per_extension."ext"\] network = true'):
        await _host(tmp_path).fetch(request, IDLE)
    with pytest.raises(HostError, match="only http and https"):
        await _host(tmp_path, network=True).fetch(request, IDLE)


async def test_allow_paths_and_the_extensions_folder_are_readable_by_absolute_path(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "data.json").write_text("{}")
    (root / "ext-home").mkdir()
    (root / "ext-home" / "table.txt").write_text("table")
    target = str(shared / "data.json")
    with pytest.raises(HostError, match="rho"):
        await _host(root).read_file(target, IDLE)
    assert await _host(root, allow_paths=["../shared"]).read_file(target, IDLE) == "{}"
    assert await _host(root).read_file(str(root / "ext-home" / "table.txt"), IDLE) == "table"


async def test_a_command_an_extension_runs_sees_no_api_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-extensions")
    ran = await _host(tmp_path, commands=True).run_command("env", [], RUNNER)
    assert ran["exitCode"] == 0 and "PATH=" in ran["stdout"]
    assert "OPENAI_API_KEY" not in ran["stdout"]


async def test_a_user_extension_reads_its_own_folder_in_rho_state_but_nothing_else_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    own = home / ".rho" / "extensions" / "mine"
    own.mkdir(parents=True)
    (own / "data.json").write_text('{"ok": true}')
    (home / ".rho" / "sessions").mkdir()
    (home / ".rho" / "sessions" / "s.jsonl").write_text("SESSION")
    (home / ".rho" / "config.toml").write_text("CONFIG")
    monkeypatch.setenv("HOME", str(home))
    root = tmp_path / "project"
    root.mkdir()
    host = ProjectHost(
        name="mine",
        root=SandboxRoot(root),
        config=RhoConfig(),
        permissions=ExtensionPermissions(allow_paths=[str(home / ".rho" / "sessions")]),
        extension_root=own,
    )
    assert await host.read_file(str(own / "data.json"), IDLE) == '{"ok": true}'
    for path in (home / ".rho" / "config.toml", home / ".rho" / "sessions" / "s.jsonl"):
        with pytest.raises(HostError, match=r"rho\.readFile"):
            await host.read_file(str(path), IDLE)
