"""`build_policy`: the project's policy, with every path canonical and credentials denied."""

from __future__ import annotations

import os
from pathlib import Path

from rho_kernel.confinement import (
    DEFAULT_HOME_READ_DENY,
    DEFAULT_SYSTEM_READ_DENY,
    ConfinementPolicy,
    build_policy,
)
from rho_kernel.confinement.policy import canonical


def test_the_root_is_canonical_and_git_and_rho_are_read_only(project: Path, home: Path) -> None:
    link = project.parent / "link-to-project"
    link.symlink_to(project)
    policy = build_policy(link, home=home)
    assert policy.root == project
    assert policy.read_only == (project / ".git",)  # a missing .rho has nothing to keep
    (project / ".rho").mkdir()
    assert set(build_policy(link, home=home).read_only) == {project / ".git", project / ".rho"}
    assert policy.writable == () and policy.network is False and policy.private_tmp


def test_a_symlinked_git_directory_is_read_only_where_it_points(project: Path, home: Path) -> None:
    (project / ".git").rmdir()
    (project / "gitdir").mkdir()
    (project / ".git").symlink_to("gitdir")
    policy = build_policy(project, home=home)
    assert policy.read_only == (project / ".git", project / "gitdir")


def test_every_default_credential_location_of_the_home_is_denied(project: Path, home: Path) -> None:
    real_home = home.parent / "real-home"
    real_home.mkdir()
    link_home = home.parent / "link-home"
    link_home.symlink_to(real_home)
    policy = build_policy(project, home=link_home)
    for name in DEFAULT_HOME_READ_DENY:
        assert real_home / name in policy.read_deny, name
    for socket in DEFAULT_SYSTEM_READ_DENY:
        assert Path(os.path.realpath(socket)) in policy.read_deny, socket


def test_a_symlinked_credential_directory_is_denied_where_it_points(
    project: Path, home: Path
) -> None:
    keys = home.parent / "keys"
    keys.mkdir()
    (home / ".ssh").symlink_to(keys)
    assert keys in build_policy(project, home=home).read_deny


def test_the_runtime_directory_and_ssh_agent_directory_are_denied(
    project: Path, home: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    runtime = home.parent / "runtime"
    agent = home.parent / "agent"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("SSH_AUTH_SOCK", str(agent / "agent.sock"))
    denied = build_policy(project, home=home).read_deny
    assert runtime in denied and agent in denied


def test_extra_deny_entries_home_relative_and_absolute_are_canonical(
    project: Path, home: Path
) -> None:
    (project / "secrets").mkdir()
    (project / "shortcut").symlink_to("secrets")
    elsewhere = home.parent / "elsewhere"
    policy = build_policy(
        project,
        home=home,
        extra_read_deny=["~/notes.txt", "shortcut", str(elsewhere / "sub" / ".." / "file"), "~"],
    )
    assert home / "notes.txt" in policy.read_deny
    assert project / "secrets" in policy.read_deny
    assert project / "shortcut" not in policy.read_deny
    assert elsewhere / "file" in policy.read_deny
    assert home in policy.read_deny  # the project is not under this home


def test_a_deny_entry_containing_the_project_is_dropped(project: Path, home: Path) -> None:
    inside_home = home / "code" / "proj"
    inside_home.mkdir(parents=True)
    policy = build_policy(
        inside_home, home=home, extra_read_deny=["~", "~/code", str(inside_home), "/", "x"]
    )
    for dropped in (home, home / "code", inside_home, Path("/")):
        assert dropped not in policy.read_deny
    assert inside_home / "x" in policy.read_deny
    assert home / ".ssh" in policy.read_deny  # a credential beside the project stays denied


def test_a_credential_location_containing_the_project_is_dropped(home: Path) -> None:
    root = home / ".config" / "rho" / "work"
    root.mkdir(parents=True)
    policy = build_policy(root, home=home)
    assert home / ".config" / "rho" not in policy.read_deny
    assert home / ".ssh" in policy.read_deny


def test_granted_writable_entries_are_canonical_and_exclude_the_root(
    project: Path, home: Path
) -> None:
    cache = home / ".cache" / "pip"
    cache.mkdir(parents=True)
    (project / "out").mkdir()
    policy = build_policy(
        project,
        home=home,
        writable=["~/.cache/pip", "out", str(project), ".", "~/.cache/../.cache/pip"],
    )
    assert policy.writable == (cache, project / "out")


def test_network_is_false_true_or_a_tuple_of_hosts(project: Path, home: Path) -> None:
    assert build_policy(project, home=home).network is False
    assert build_policy(project, home=home, network=True).network is True
    hosts = build_policy(project, home=home, network=["pypi.org", "example.com"]).network
    assert hosts == ("pypi.org", "example.com")
    assert ConfinementPolicy(root=project, network=()).network_allowed is False
    assert ConfinementPolicy(root=project, network=("pypi.org",)).network_allowed is True


def test_canonical_expands_only_a_leading_tilde(tmp_path: Path) -> None:
    home = tmp_path / "home"
    base = tmp_path / "base"
    assert canonical("~", base=base, home=home) == home
    assert canonical("~/a", base=base, home=home) == home / "a"
    assert canonical("~user/a", base=base, home=home) == base / "~user" / "a"
    assert canonical("a/~/b", base=base, home=home) == base / "a" / "~" / "b"
