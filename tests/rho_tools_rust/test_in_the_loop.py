"""The Rust tools through the agent loop: approval by risk, the project's OS sandbox,
failures reaching the model as errors."""

from __future__ import annotations

from pathlib import Path

from rust_crates import needs_cargo  # type: ignore[import-not-found]

from rho_kernel.config.model import RhoConfig
from rho_kernel.testing import ScriptedServer, approve_all, run_prompt, text_reply, tool_call_reply
from rho_tools_rust.cargo_fix import cargo_fix
from rho_tools_rust.cargo_test import cargo_test
from rho_tools_rust.rustc_explain import rustc_explain


def confined() -> bool:
    """Whether rho confines commands here (bubblewrap, or Landlock where it is missing)."""
    from sandboxes import working_backend  # type: ignore[import-not-found]

    return working_backend() is not None


#: Where no OS sandbox works, commands run as the rules say rather than each asking.
RUN_ANYWAY = RhoConfig.model_validate({"sandbox": {"require": False}})

FAILING = "#[test]\nfn adds() {\n    assert_eq!(1 + 2, 4);\n}\n"


@needs_cargo
async def test_a_failing_test_reaches_the_model_as_an_error(
    scripted_server: ScriptedServer, make_crate, outside_tmp: Path
) -> None:
    root = make_crate({"src/lib.rs": FAILING}, base=outside_tmp)
    scripted_server.add(
        tool_call_reply("rustc_explain", {"error_code": "e0308"}),
        tool_call_reply("cargo_test", {"test_name": "adds"}),
        text_reply("done"),
    )
    gate = approve_all()
    result = await run_prompt(
        "test it",
        endpoint=scripted_server.chat_url,
        root=root,
        tools=[cargo_test, cargo_fix, rustc_explain],
        config=RUN_ANYWAY,
        gate=gate,
    )
    # Confined by the OS sandbox, building and testing cannot write outside the project:
    # cargo_test then counts as a read and runs unasked; unconfined it asks.
    assert [request.tool for request in gate.requests] == ([] if confined() else ["cargo_test"])
    explain, test = result.tool_calls
    assert explain.outcome == "success"
    assert "mismatched" in (explain.output or "") or "Expected type" in (explain.output or "")
    assert test.outcome == "error"
    assert (test.output or "").startswith(
        "cargo_test: 0 passed, 1 failed, 0 ignored\nFAILED adds — assertion `left == right` failed"
    )
