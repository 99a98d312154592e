"""The knowledge base through the real `rho` process: a fact stored in one session is found
in the next, writes ask and reads do not, `[memory] enabled` decides whether the tool exists,
an unusable `memory.db` never stops rho, and two rho processes share one database."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

ENABLED = "[memory]\nenabled = true\n"


def _enable(project: Path) -> None:
    config = project / ".rho" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(ENABLED)


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def _prompt(rho: RhoProcess, message: str, approvals: int = 0) -> dict[str, Any]:
    prompt = rho.request("prompt", {"message": message})
    for _ in range(approvals):
        request = rho.notification("approval/request")["params"]
        assert (request["tool"], request["risk"]) == ("memory", "write")
        rho.answer_approval(request)
    response = rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    assert "result" in response, response
    return response


def test_a_fact_stored_in_one_session_is_found_in_the_next(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _enable(project)
    fact = {"operation": "store", "title": "Staging port", "content": "Staging listens on 8443."}
    server.add(tool_call_reply("memory", fact), text_reply("stored"))
    first = start_scripted(start_rho, server)
    _prompt(first, "remember the staging port", approvals=1)
    (stored,) = _results(first)
    assert stored["is_error"] is False and 'status="stored"' in stored["output"]
    assert first.finish() == 0

    server.add(
        tool_call_reply("memory", {"operation": "search", "query": "staging port"}),
        text_reply("8443"),
    )
    second = start_scripted(start_rho, server)
    assert _prompt(second, "which port does staging use?")["result"]["reply"] == "8443"
    (found,) = _results(second)
    assert "Staging listens on 8443." in found["output"]
    assert not any(m.get("method") == "approval/request" for m in second.seen)
    assert "Staging listens on 8443." in str(server.requests[-1].json["messages"][-1])
    assert second.finish() == 0
    assert "Traceback" not in first.stderr_text() + second.stderr_text()


def test_without_the_setting_there_is_no_memory_tool(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")
    tools = {t["name"] for t in rho.call("listTools")["result"]["tools"]}
    assert "read_file" in tools and "memory" not in tools
    error = rho.call("ingestMemory", {"path": "."})["error"]
    assert error["code"] == -32010 and "[memory] enabled = true" in error["message"]
    assert rho.finish() == 0
    assert not (project / ".rho" / "memory.db").exists()


def test_the_tool_lists_with_its_highest_risk_and_nothing_opens_before_use(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _enable(project)
    rho = start_scripted(start_rho, server, "--ephemeral")
    tools = {t["name"]: t for t in rho.call("listTools")["result"]["tools"]}
    assert tools["memory"]["risk"] == "write"
    assert rho.finish() == 0
    assert not (project / ".rho" / "memory.db").exists()


def test_a_corrupt_database_is_the_tools_answer_and_rho_runs_on(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _enable(project)
    (project / ".rho" / "memory.db").write_bytes(b"\x00garbage" * 100)
    server.add(
        tool_call_reply("memory", {"operation": "search", "query": "anything"}),
        text_reply("the knowledge base is broken"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    _prompt(rho, "search")
    (result,) = _results(rho)
    assert result["is_error"] is True
    assert "not a SQLite database" in result["output"]
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()


def test_two_rho_processes_store_into_one_database(  # type: ignore[no-untyped-def]
    start_rho, project: Path
) -> None:
    _enable(project)
    servers = [ScriptedServer().__enter__() for _ in range(2)]
    try:
        processes = []
        for n, server in enumerate(servers):
            calls = [
                tool_call_reply(
                    "memory",
                    {"operation": "store", "title": f"p{n} fact {i}", "content": f"p{n}-{i}"},
                )
                for i in range(5)
            ]
            server.add(*calls, text_reply("done"))
            processes.append(start_scripted(start_rho, server))
        prompts = [rho.request("prompt", {"message": "store"}) for rho in processes]
        for prompt, rho in zip(prompts, processes, strict=True):
            for _ in range(5):
                rho.answer_approval(rho.notification("approval/request")["params"])
            rho.wait_for(lambda m, p=prompt: m.get("id") == p and "method" not in m, timeout=60)
        for rho in processes:
            assert all(not r["is_error"] for r in _results(rho))
            assert rho.finish() == 0
    finally:
        for server in servers:
            server.__exit__(None, None, None)
    with sqlite3.connect(project / ".rho" / "memory.db") as conn:
        titles = {row[0] for row in conn.execute("SELECT title FROM documents")}
    assert titles == {f"p{n} fact {i}" for n in range(2) for i in range(5)}


def test_ingest_memory_loads_project_docs_the_model_then_finds(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _enable(project)
    (project / "docs").mkdir()
    (project / "docs" / "adr.md").write_text("# ADR 7\n\nWe chose PostgreSQL over MySQL.\n")
    (project / "notes.txt").write_text("Release on Fridays only.\n")
    server.add(
        tool_call_reply("memory", {"operation": "search", "query": "PostgreSQL"}),
        text_reply("found"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    report = rho.call("ingestMemory", {})["result"]
    assert report == {
        "files": 2,
        "added": 2,
        "updated": 0,
        "unchanged": 0,
        "removed": 0,
        "documents": 2,
        "skipped": [],
        "truncated": False,
    }
    (project / "notes.txt").write_text("Release on Thursdays.\n")
    again = rho.call("ingestMemory", {"path": "."})["result"]
    assert (again["updated"], again["unchanged"]) == (1, 1)
    refused = rho.call("ingestMemory", {"path": "../"})["error"]
    assert refused["code"] == -32602 and "path" in refused["message"]
    _prompt(rho, "what database?")
    (result,) = _results(rho)
    assert 'title="docs/adr.md › ADR 7"' in result["output"]
    assert rho.finish() == 0


KEY_BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
]


def test_an_ingested_private_key_is_stored_and_found_only_redacted(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _enable(project)
    filler = "\n\n".join(f"Paragraph {n}: " + "deploy notes " * 40 for n in range(20))
    key = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY]  # and no END line
    (project / "deploy.md").write_text(f"# Deploy\n\n{filler}\n\n" + "\n".join(key) + "\n")
    server.add(
        tool_call_reply("memory", {"operation": "search", "query": "MIIEowIBAAKCAQEAu1SU1Lf"}),
        tool_call_reply("memory", {"operation": "search", "query": "deploy notes"}),
        text_reply("found"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("ingestMemory", {})["result"]["documents"] >= 2
    _prompt(rho, "find the key")
    outputs = " ".join(r["output"] for r in _results(rho))
    assert "Paragraph 1" in outputs
    assert rho.finish() == 0
    with sqlite3.connect(project / ".rho" / "memory.db") as db:
        stored = " ".join(str(row) for row in db.execute("SELECT * FROM documents"))
    for line in KEY_BODY:
        assert line[:24] not in stored and line[:24] not in outputs
