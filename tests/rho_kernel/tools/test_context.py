"""ToolContext.run_process: a process started without `env` gets no secrets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import ProviderConfig, RhoConfig, ShellConfig
from rho_kernel.security.sandbox import SandboxRoot
from rho_kernel.tools import ToolContext

PRINT_ENV = "import json, os; print(json.dumps(dict(os.environ)))"


def context(root: Path) -> ToolContext:
    config = RhoConfig(
        providers=[ProviderConfig(name="corp", api_key_env="CORP_TOKEN")],
        shell=ShellConfig(env_remove=["DEPLOY_*"]),
    )
    return ToolContext(root=SandboxRoot(root), config=config, cancel=CancelToken())


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "OPENAI_API_KEY": "sk-1",
        "CORP_TOKEN": "t-2",
        "DEPLOY_PASSWORD": "p-3",
        "BASH_ENV": "/tmp/evil.sh",
        "RHO_VISIBLE": "kept",
    }.items():
        monkeypatch.setenv(name, value)


async def test_a_process_started_without_env_gets_none_of_the_secrets(
    tmp_path: Path, secrets: None
) -> None:
    import json

    result = await context(tmp_path).run_process([sys.executable, "-c", PRINT_ENV])
    seen = json.loads(result.stdout)
    assert seen["RHO_VISIBLE"] == "kept"
    assert not {"OPENAI_API_KEY", "CORP_TOKEN", "DEPLOY_PASSWORD", "BASH_ENV"} & set(seen)


async def test_an_explicit_env_is_passed_as_given(tmp_path: Path, secrets: None) -> None:
    import json

    ctx = context(tmp_path)
    env = {**ctx.command_environment(), "EXTRA": "1"}
    result = await ctx.run_process([sys.executable, "-c", PRINT_ENV], env=env)
    seen = json.loads(result.stdout)
    assert seen["EXTRA"] == "1" and "CORP_TOKEN" not in seen
