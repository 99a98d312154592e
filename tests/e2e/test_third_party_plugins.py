"""docs/openrpc.json is rho's own protocol, whatever third-party plugin is installed next to
rho: the live `rpc.discover` of rho's plugins and the generator both match it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rho_process import RhoProcess, plugin_env  # type: ignore[import-not-found]

from rho_rpc.distributions import disabling_config, foreign_plugins

ROOT = Path(__file__).resolve().parents[2]

ACME = '''
from rho_kernel import hookimpl, tool
from rho_kernel.rpc import RpcMethod


@tool(risk="read")
def acme_hello() -> str:
    """Say hello."""
    return "hello"


@hookimpl
def rho_register_tools():
    return [acme_hello]


@hookimpl
def rho_register_rpc_methods():
    async def ping(params):
        return {"pong": True}

    return [RpcMethod(name="acme/ping", handler=ping, summary="Ping ACME.")]
'''


@pytest.fixture
def acme_site(tmp_path: Path) -> Path:
    """A site directory where the distribution `acme-rho-plugin` is installed."""
    site = tmp_path / "site"
    dist = site / "acme_rho_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-rho-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[rho]\nacme = acme_rho_plugin\n")
    (site / "acme_rho_plugin.py").write_text(ACME)
    return site


def _committed() -> dict:
    return json.loads((ROOT / "docs" / "openrpc.json").read_text())


def test_the_plugin_is_installed_and_serves_its_method(start_rho, acme_site: Path) -> None:  # type: ignore[no-untyped-def]
    process: RhoProcess = start_rho("--ephemeral", env=plugin_env(acme_site, "acme"))
    assert process.read()["method"] == "ready"
    assert process.call("acme/ping")["result"] == {"pong": True}
    discovered = {m["name"] for m in process.call("rpc.discover")["result"]["methods"]}
    assert "acme/ping" in discovered
    assert process.finish() == 0


def test_foreign_plugins_are_those_rho_does_not_ship(acme_site: Path) -> None:
    foreign = foreign_plugins([str(acme_site), *sys.path])
    assert "acme" in foreign
    assert not {"rho-kernel", "rho-rpc", "rho-tools-fs"} & set(foreign)


def test_discover_matches_the_committed_document_with_the_plugin_disabled(  # type: ignore[no-untyped-def]
    start_rho, home: Path, acme_site: Path
) -> None:
    (home / ".rho").mkdir()
    config = disabling_config(foreign_plugins([str(acme_site), *sys.path]))
    (home / ".rho" / "config.toml").write_text(config)
    process: RhoProcess = start_rho("--ephemeral", env=plugin_env(acme_site, "acme"))
    assert process.read()["method"] == "ready"
    document = process.call("rpc.discover")["result"]
    assert document == _committed(), (
        "docs/openrpc.json is stale: run `uv run python -m rho_rpc.openrpc > docs/openrpc.json`"
    )
    names = {m["name"] for m in document["methods"]}
    assert {
        "prompt",
        "abort",
        "clear",
        "newSession",
        "getState",
        "getMessages",
        "listTools",
        "listSessions",
        "resumeSession",
        "approvalResponse",
        "listPlugins",
    } <= names
    assert process.finish() == 0


def test_the_generated_document_leaves_third_party_methods_out(acme_site: Path) -> None:
    env = {**os.environ, **plugin_env(acme_site, "acme")}
    done = subprocess.run(
        [sys.executable, "-m", "rho_rpc.openrpc"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == _committed()
    assert "Traceback" not in done.stderr
