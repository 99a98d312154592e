"""`[sandbox]` from a project file: an untrusted one may tighten the sandbox, never loosen it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from rho_kernel.config import SandboxConfig

if TYPE_CHECKING:
    from conftest import Env  # the fixture's type, from this folder's conftest.py


def test_the_defaults_confine_without_network_or_extra_paths(env: Env) -> None:
    assert env.load().sandbox == SandboxConfig(
        mode="confined", network=False, writable=[], extra_read_deny=[], require="ask"
    )
    assert env.load().sandbox.backend is None


@pytest.mark.parametrize(
    ("setting", "shown"),
    [
        ('mode = "off"', 'sandbox.mode = "off"'),
        ("network = true", "sandbox.network = true"),
        ('network = ["packages.example.org"]', "sandbox.network"),
        ('writable = ["~/.cache"]', "sandbox.writable"),
        ('backend = "none"', 'sandbox.backend = "none"'),
    ],
)
def test_an_untrusted_project_cannot_loosen_the_sandbox(env: Env, setting: str, shown: str) -> None:
    path = env.project(f"[sandbox]\n{setting}\n")
    assert env.load().sandbox == SandboxConfig()
    assert len(env.warnings) == 1
    assert env.warnings[0].startswith(f"{path}: ignored settings that need trust ({shown}")
    assert "run 'rho trust' in it to apply them" in env.warnings[0]


def test_an_untrusted_project_cannot_drop_the_users_require(env: Env) -> None:
    env.user("[sandbox]\nrequire = true\n")
    env.project("[sandbox]\nrequire = false\n")
    assert env.load().sandbox.require is True
    assert "sandbox.require = false" in env.warnings[0]


@pytest.mark.parametrize(
    ("user", "project", "kept"),
    [
        ("", "false", "ask"),
        ("require = true", '"ask"', True),
        ('require = "ask"', "false", "ask"),
    ],
)
def test_an_untrusted_project_cannot_lower_the_requirement(
    env: Env, user: str, project: str, kept: object
) -> None:
    env.user(f"[sandbox]\n{user}\n")
    env.project(f"[sandbox]\nrequire = {project}\n")
    assert env.load().sandbox.require == kept
    assert f"sandbox.require = {project}" in env.warnings[0]


@pytest.mark.parametrize(("user", "project"), [("false", '"ask"'), ('"ask"', "true")])
def test_an_untrusted_project_may_raise_the_requirement(env: Env, user: str, project: str) -> None:
    env.user(f"[sandbox]\nrequire = {user}\n")
    env.project(f"[sandbox]\nrequire = {project}\n")
    assert env.load().sandbox.require == (True if project == "true" else "ask")
    assert env.warnings == []


def test_an_untrusted_project_cannot_add_hosts_to_the_users_list(env: Env) -> None:
    env.user('[sandbox]\nnetwork = ["packages.example.org"]\n')
    env.project('[sandbox]\nnetwork = ["packages.example.org", "attacker.example"]\n')
    assert env.load().sandbox.network == ["packages.example.org"]
    assert len(env.warnings) == 1


def test_an_untrusted_project_may_narrow_the_network(env: Env) -> None:
    env.user("[sandbox]\nnetwork = true\n")
    env.project('[sandbox]\nnetwork = ["packages.example.org"]\n')
    assert env.load().sandbox.network == ["packages.example.org"]
    assert env.warnings == []


def test_an_untrusted_project_may_tighten_the_sandbox(env: Env) -> None:
    env.user('[sandbox]\nmode = "off"\nnetwork = true\n')
    env.project('[sandbox]\nmode = "confined"\nrequire = true\nnetwork = false\n')
    sandbox = env.load().sandbox
    assert (sandbox.mode, sandbox.require, sandbox.network) == ("confined", True, False)
    assert env.warnings == []


def test_project_deny_entries_extend_the_users(env: Env) -> None:
    env.user('[sandbox]\nextra_read_deny = ["~/notes", "~/mail"]\n')
    env.project('[sandbox]\nextra_read_deny = ["secrets", "~/notes"]\n')
    assert env.load().sandbox.extra_read_deny == ["~/notes", "~/mail", "secrets"]
    assert env.warnings == []


def test_a_project_repeating_the_users_writable_entries_keeps_them(env: Env) -> None:
    env.user('[sandbox]\nwritable = ["~/.cache", "~/.npm"]\n')
    env.project('[sandbox]\nwritable = ["~/.npm"]\n')
    assert env.load().sandbox.writable == ["~/.cache", "~/.npm"]
    assert env.warnings == []


def test_an_untrusted_projects_new_writable_entry_is_dropped_and_the_users_kept(
    env: Env,
) -> None:
    env.user('[sandbox]\nwritable = ["~/.cache"]\n')
    env.project('[sandbox]\nwritable = ["~/.cache", "/"]\n')
    assert env.load().sandbox.writable == ["~/.cache"]
    assert "sandbox.writable" in env.warnings[0]


def test_a_trusted_projects_loosening_values_apply(env: Env) -> None:
    env.user('[sandbox]\nrequire = true\nwritable = ["~/.cache"]\nextra_read_deny = ["~/a"]\n')
    env.project(
        '[sandbox]\nmode = "off"\nnetwork = ["packages.example.org"]\nwritable = ["~/.cargo"]\n'
        'backend = "bubblewrap"\nrequire = false\nextra_read_deny = ["b"]\n'
    )
    env.trust()
    assert env.load().sandbox == SandboxConfig(
        mode="off",
        network=["packages.example.org"],
        writable=["~/.cache", "~/.cargo"],
        extra_read_deny=["~/a", "b"],
        require=False,
        backend="bubblewrap",
    )
    assert env.warnings == []


def test_a_trusted_project_may_turn_the_network_on(env: Env) -> None:
    env.project("[sandbox]\nnetwork = true\n")
    env.trust()
    assert env.load().sandbox.network is True


def test_the_user_file_sets_everything(env: Env) -> None:
    env.user(
        '[sandbox]\nmode = "off"\nnetwork = true\nwritable = ["~/.cache"]\n'
        'backend = "seatbelt"\nrequire = true\n'
    )
    sandbox = env.load().sandbox
    assert (sandbox.mode, sandbox.network, sandbox.writable) == ("off", True, ["~/.cache"])
    assert (sandbox.backend, sandbox.require) == ("seatbelt", True)
    assert env.warnings == []
