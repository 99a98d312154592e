"""`runUserCommand` through the real `rho` process: a command of the user's own joins the
conversation as their message, through the command policy, the sandbox and redaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from machines import path_without_bubblewrap, without_landlock  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import needs_sandbox, working_backend  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

SECRET = "sk-proj-" + "Zx9" * 16


def _messages(rho: RhoProcess) -> list[dict[str, Any]]:
    return rho.call("getMessages")["result"]["messages"]


def _run(rho: RhoProcess, **params: Any) -> dict[str, Any]:
    return rho.call("runUserCommand", params)


def test_the_command_joins_the_conversation_as_the_users_message_and_the_model_sees_it(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    server.add(text_reply("I see it"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    done = _run(rho, command="echo hello; echo oops >&2; exit 3")["result"]
    assert (done["exitCode"], done["timedOut"], done["cancelled"]) == (3, False, False)
    assert done["output"] == "hello\n\nstderr:\noops\n" and done["shortened"] is False
    last = _messages(rho)[-1]
    assert last["role"] == "user"
    assert last["content"] == (
        "I ran `echo hello; echo oops >&2; exit 3` (exit code 3):\n"
        "```\nhello\n\nstderr:\noops\n\n```"
    )
    rho.call("prompt", {"message": "what did it say?"})
    assert "approval/request" not in rho.methods_seen()  # the user asked: nobody is asked
    assert rho.finish() == 0
    [post] = [r.json for r in server.requests if r.method == "POST"]
    users = [m["content"] for m in post["messages"] if m["role"] == "user"]
    assert users == [last["content"], "what did it say?"]


@needs_sandbox
def test_it_runs_in_the_sandbox_without_credentials_and_its_output_is_redacted(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    (project / "notes.txt").write_text(f"key={SECRET}\n")
    rho = start_scripted(start_rho, server, "--ephemeral", env={"OPENAI_API_KEY": SECRET})
    done = _run(rho, command="cat notes.txt; echo env=${OPENAI_API_KEY:-unset}")["result"]
    assert SECRET not in str(done) and "[REDACTED]" in done["output"]
    assert "env=unset" in done["output"]  # credentials never reach a command
    assert done["confinedBy"] == working_backend()
    _run(rho, command="touch ../outside.txt")  # outside the project: never written there
    assert not (project.parent / "outside.txt").exists()
    assert SECRET not in str(_messages(rho))
    assert rho.finish() == 0


def test_the_denylist_and_deny_rules_still_refuse_and_nothing_joins(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral", "--deny", "run_command(git push:*)")
    before = _messages(rho)
    for command in ("curl https://example.com", "true && rm -rf ~", "git push origin main"):
        error = _run(rho, command=command)["error"]
        assert error["code"] == -32030 and "rho does not run this command" in error["message"]
    assert "git push:*" in error["message"] and "--deny" in error["message"]
    assert _messages(rho) == before
    assert rho.finish() == 0


def test_it_waits_for_the_running_prompt_and_comes_after_its_turn(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    server.add(tool_call_reply("write_file", {"path": "a.txt", "content": "x"}), text_reply("ok"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt = rho.request("prompt", {"message": "write"})
    approval = rho.notification("approval/request")["params"]
    command = rho.request("runUserCommand", {"command": "cat a.txt"})
    rho.answer_approval(approval, approved=True)
    answers = [
        rho.wait_for(lambda m: m.get("id") in (prompt, command) and "method" not in m)["id"]
        for _ in range(2)
    ]
    assert answers == [prompt, command]
    messages = _messages(rho)
    assert messages[-2]["content"] == "ok"  # the turn's last reply, then the command
    assert messages[-1]["content"] == "I ran `cat a.txt` (exit code 0):\n```\nx\n```"
    assert rho.finish() == 0


def test_abort_stops_it_and_nothing_joins(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")
    before = _messages(rho)
    asked = rho.request("runUserCommand", {"command": "sleep 300"})
    while not rho.call("getState")["result"]["busy"]:  # waits for the command to hold the turn
        pass
    rho.call("abort")
    done = rho.wait_for(lambda m: m.get("id") == asked)["result"]
    assert (done["cancelled"], done["exitCode"], done["entryId"]) == (True, None, None)
    assert _messages(rho) == before
    assert rho.finish() == 0


def test_a_timeout_stops_it_and_says_so(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    rho = start_scripted(start_rho, server, "--ephemeral")
    done = _run(rho, command="echo started; sleep 300", timeout=1)["result"]
    assert done["timedOut"] is True and done["exitCode"] is None and "started" in done["output"]
    assert _messages(rho)[-1]["content"].startswith(
        "I ran `echo started; sleep 300` (stopped after 1 s: it did not finish in time):"
    )
    assert rho.finish() == 0


def test_a_long_output_is_cut_to_fit_and_kept_whole_in_the_entry(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral", "--token-budget", "4096")
    done = _run(rho, command="seq 1 5000")["result"]
    assert done["shortened"] is True and done["output"].endswith("4999\n5000\n")
    last = _messages(rho)[-1]
    assert "[output cut to fit the context window" in last["content"]
    assert "\n5000\n" not in last["content"]
    assert "\n5000\n" in last["details"]["FullOutput"]["content"]
    assert rho.finish() == 0


def test_a_multi_line_command_and_a_working_directory_are_shown(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    (project / "sub").mkdir()
    rho = start_scripted(start_rho, server, "--ephemeral")
    done = _run(rho, command="pwd\ntrue", cwd="sub")["result"]
    assert done["output"] == f"{project / 'sub'}\n"
    assert _messages(rho)[-1]["content"] == (
        f"I ran this command in sub:\n```sh\npwd\ntrue\n```\nIt ended (exit code 0):\n"
        f"```\n{project / 'sub'}\n\n```"
    )
    quiet = _run(rho, command="true")["result"]
    assert quiet["output"] == ""
    assert _messages(rho)[-1]["content"] == "I ran `true` (exit code 0). It printed nothing."
    assert rho.finish() == 0


def test_bad_requests_are_refused_in_rhos_words(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    (project / "file.txt").write_text("x")
    (project / "away").symlink_to(project.parent)
    rho = start_scripted(start_rho, server, "--ephemeral")
    before = _messages(rho)
    for params, said in (
        ({"command": "ls", "cwd": "../"}, "cwd: '../' is refused"),
        ({"command": "ls", "cwd": "missing"}, "cwd: 'missing' does not exist"),
        ({"command": "ls", "cwd": "file.txt"}, "cwd: 'file.txt' is not a directory"),
        ({"command": "ls", "cwd": "away"}, "cwd: 'away' is refused"),
        ({"command": "ls", "cwd": str(project.parent)}, "is refused"),
        ({"command": "echo a\u0000b"}, "command: a NUL character cannot reach the shell"),
        ({"command": "ls", "cwd": "a\u0000b"}, "cwd: a NUL character"),
        ({"command": "ls", "timeout": 0}, "timeout: give whole seconds from 1 to 600"),
        ({"command": "ls", "timeout": 100000}, "[shell] max_timeout_secs"),
        ({"command": "   "}, "command: give a command line"),
        ({"command": ""}, "command"),
        ({"command": "ls", "timeout": "5"}, "timeout"),
    ):
        error = _run(rho, **params)["error"]
        assert error["code"] == -32602 and said in error["message"], (params, error)
    assert _messages(rho) == before
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()


def test_where_no_sandbox_works_the_request_is_the_approval_unless_require_is_true(
    start_rho,
    server: ScriptedServer,
    home: Path,
    outside_tmp: Path,  # type: ignore[no-untyped-def]
) -> None:
    target = outside_tmp / "made-unconfined"
    env = {"PATH": path_without_bubblewrap(outside_tmp / "bin")}
    asks = start_scripted(start_rho, server, "--ephemeral", env=env, prefix=without_landlock([]))
    assert asks.call("getState")["result"]["sandbox"]["alwaysAsks"] is True
    done = _run(asks, command=f"touch {target}")["result"]
    assert done["exitCode"] == 0 and "confinedBy" not in done and target.exists()
    assert "approval/request" not in asks.methods_seen()
    assert asks.finish() == 0
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[sandbox]\nrequire = true\n")
    target.unlink()
    refuses = start_scripted(start_rho, server, "--ephemeral", env=env, prefix=without_landlock([]))
    error = _run(refuses, command=f"touch {target}")["error"]
    assert error["code"] == -32030 and "require = true" in error["message"]
    assert not target.exists()
    assert refuses.finish() == 0
