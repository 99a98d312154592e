"""Project root and project trust through the real `rho` process and `rho trust`."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rho_process import RHO, RhoProcess, rho_env  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

AUTO_WRITE = '[approval.per_tool]\nwrite_file = "auto"\n'


def _rho_trust(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = rho_env(home)
    return subprocess.run(
        [RHO, "trust", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _write_config(project: Path, text: str) -> Path:
    path = project / ".rho" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


# ── the project root and the home directory ─────────────────────────────────


def test_users_own_rho_dir_does_not_make_home_the_project(start_rho, home: Path) -> None:  # type: ignore[no-untyped-def]
    (home / ".rho").mkdir()
    (home / ".rho" / "config.toml").write_text('[agent]\nmodel = "from-user-config"\n')
    notes = home / "scratch" / "notes"
    notes.mkdir(parents=True)
    rho = start_rho("--ephemeral", cwd=notes)
    ready = rho.read()["params"]
    assert ready["cwd"] == str(notes.resolve())
    assert ready["model"] == "from-user-config"
    assert rho.finish() == 0


def test_starting_in_home_is_refused_unless_root_is_given(start_rho, home: Path) -> None:  # type: ignore[no-untyped-def]
    refused = start_rho("--ephemeral", cwd=home)
    assert refused.finish() == 2
    assert refused.raw == []
    err = refused.stderr_text()
    assert err.startswith(f"rho: error: {home.resolve()} is your home directory")
    assert "--root" in err and "Traceback" not in err
    explicit = start_rho("--ephemeral", "--root", str(home), cwd=home)
    assert explicit.read()["params"]["cwd"] == str(home.resolve())
    assert explicit.finish() == 0


# ── trust ───────────────────────────────────────────────────────────────────


def _prompt_write(start_rho, server: ScriptedServer, project: Path) -> RhoProcess:  # type: ignore[no-untyped-def]
    rho = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--ephemeral")
    assert rho.read()["method"] == "ready"
    rho.request("prompt", {"message": "write"})
    return rho


def test_untrusted_auto_asks_until_trusted_editing_lapses_trust_and_revoke_ends_it(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    # `rho trust --list` and `--revoke` are checked along the way, on this project's trust
    # (a `rho trust` of their own cost ~0.5 s of CPU).
    config = _write_config(project, AUTO_WRITE)
    write = tool_call_reply("write_file", {"path": "out.txt", "content": "hi"})

    server.add(write)
    untrusted = _prompt_write(start_rho, server, project)
    assert untrusted.notification("approval/request")["params"]["tool"] == "write_file"
    untrusted.kill()
    assert (
        f"rho: warning: {config}: ignored settings that need trust "
        '(approval.per_tool.write_file = "auto"): this project is not trusted; '
        "run 'rho trust' in it to apply them"
    ) in untrusted.stderr_text()

    trusted = _rho_trust(cwd=project / ".rho", home=home)
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.startswith(f"trusted {project}/.rho/config.toml (sha256 ")
    assert 'settings that now apply:\n  approval.per_tool.write_file = "auto"\n' in trusted.stdout
    store = home / ".rho" / "trusted_projects.toml"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE((home / ".rho").stat().st_mode) == 0o700
    listed = _rho_trust("--list", cwd=home, home=home)
    assert listed.returncode == 0
    assert listed.stdout.startswith(f"{config}  sha256 ") and "(current)" in listed.stdout

    server.add(write, text_reply("written"))
    rho = _prompt_write(start_rho, server, project)
    assert (
        rho.wait_for(lambda m: m.get("id") is not None and "result" in m)["result"]["reply"]
        == "written"
    )
    assert "approval/request" not in rho.methods_seen()
    assert (project / "out.txt").read_text() == "hi"
    assert rho.finish() == 0
    assert "ignored settings" not in rho.stderr_text()

    config.write_text(AUTO_WRITE + "# edited\n")
    assert "(changed)" in _rho_trust("--list", cwd=home, home=home).stdout
    server.add(write)
    lapsed = _prompt_write(start_rho, server, project)
    assert lapsed.notification("approval/request")["params"]["tool"] == "write_file"
    lapsed.kill()
    assert "this file changed since it was trusted" in lapsed.stderr_text()

    revoked = _rho_trust("--revoke", "--root", str(project), cwd=home, home=home)
    assert revoked.returncode == 0
    assert revoked.stdout == f"revoked trust in {project} (.rho/config.toml)\n"
    assert _rho_trust("--list", cwd=home, home=home).stdout.startswith("no trusted project files")


def test_project_deny_applies_untrusted(start_rho, server: ScriptedServer, project: Path) -> None:  # type: ignore[no-untyped-def]
    _write_config(project, '[approval.per_tool]\nwrite_file = "deny"\n')
    server.add(tool_call_reply("write_file", {"path": "x.txt", "content": "x"}), text_reply("ok"))
    rho = _prompt_write(start_rho, server, project)
    rho.notification("agent/end")
    assert "approval/request" not in rho.methods_seen()
    assert not (project / "x.txt").exists()
    assert rho.finish() == 0
    assert "ignored settings" not in rho.stderr_text()


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        (None, 1, "does not exist: there is nothing to trust"),
        ("[agent\n", 2, "invalid TOML"),
    ],
)
def test_trust_refuses_a_missing_or_broken_config(
    project: Path, home: Path, text: str | None, code: int, message: str
) -> None:
    if text is not None:
        _write_config(project, text)
    result = _rho_trust(cwd=project, home=home)
    assert result.returncode == code
    assert result.stdout == ""
    assert result.stderr.startswith("rho: error: ") and message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (home / ".rho" / "trusted_projects.toml").exists()


# ── concurrent runs ─────────────────────────────────────────────────────────

# Waits until the barrier pipe is closed (every run is released at the same instant), then
# becomes the command.
_GATED = "import os, sys; os.read(int(sys.argv[1]), 1); os.execv(sys.argv[2], sys.argv[2:])"


def _run_together(runs: list[tuple[list[str], Path]], home: Path) -> list[tuple[int, str]]:
    """Start every `(args, cwd)` run of `rho`, release them all at once, and return each one's
    exit code and stderr."""
    env = rho_env(home)
    barrier, release = os.pipe()
    try:
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", _GATED, str(barrier), RHO, *args],
                cwd=cwd,
                env=env,
                pass_fds=(barrier,),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for args, cwd in runs
        ]
    finally:
        os.close(barrier)
        os.close(release)  # end of file on the barrier: all of them go
    results = []
    for process in processes:
        _, err = process.communicate(timeout=300)
        results.append((process.returncode, err))
    return results


def _projects(tmp_path: Path, count: int, prefix: str) -> list[Path]:
    projects = []
    for index in range(count):
        root = tmp_path / f"{prefix}{index}"
        (root / ".git").mkdir(parents=True)
        _write_config(root, f'[agent]\nmodel = "m{index}"\n')
        projects.append(root.resolve())
    return projects


def _trusted_roots(home: Path) -> list[str]:
    from rho_kernel.security import TrustStore

    return sorted(entry.root for entry in TrustStore.load(home).entries)


def test_concurrent_trust_runs_keep_every_entry(tmp_path: Path, home: Path) -> None:
    projects = _projects(tmp_path, 10, "p")
    results = _run_together([(["trust"], root) for root in projects], home)
    assert [code for code, _ in results] == [0] * len(projects), results
    assert _trusted_roots(home) == sorted(str(root) for root in projects)
    store = home / ".rho" / "trusted_projects.toml"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE((home / ".rho" / "trusted_projects.toml.lock").stat().st_mode) == 0o600


def test_concurrent_revokes_and_trusts_each_take_effect(tmp_path: Path, home: Path) -> None:
    from rho_kernel.security import TrustStore

    old = _projects(tmp_path, 6, "old")
    # The trusts to revoke are recorded as `rho trust` records them (tested above), without
    # a process each: what is under test is the concurrent runs below.
    for root in old:
        config = root / ".rho" / "config.toml"
        TrustStore.load(home).trust(root, ".rho/config.toml", config.read_bytes())
    assert _trusted_roots(home) == sorted(str(root) for root in old)
    new = _projects(tmp_path, 6, "new")
    runs = [(["trust", "--revoke"], root) for root in old[::2]]
    runs += [(["trust"], root) for root in new]
    results = _run_together(runs, home)
    assert [code for code, _ in results] == [0] * len(runs), results
    kept = [str(root) for root in [*old[1::2], *new]]
    assert _trusted_roots(home) == sorted(kept)
