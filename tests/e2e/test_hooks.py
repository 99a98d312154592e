"""rho-hooks through the real `rho`: real bash and Python hook scripts, Claude Code's
contract, and the fail-closed rule."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

PY = sys.executable


def _hooks(home: Path, text: str) -> None:
    """Write the user's config (their hooks; commands run where no OS sandbox works too)."""
    user_config(home, text)


def _hook(event: str, command: str, matcher: str = "", **extra: Any) -> str:
    lines = [f"[[hooks.{event}]]", f"matcher = {json.dumps(matcher)}"]
    lines.append(f"command = {json.dumps(command)}")
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join(lines) + "\n\n"


def _script(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def _results(server: ScriptedServer) -> list[str]:
    """The tool results the model's last request carried."""
    [*_, last] = [r for r in server.requests if r.method == "POST"]
    return [m["content"] for m in last.json["messages"] if m["role"] == "tool"]


def _runs(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "hook/run"]


def _prompt(rho: RhoProcess, message: str = "go") -> dict[str, Any]:
    return rho.call("prompt", {"message": message})


def test_a_block_by_exit_2_and_by_a_json_deny_reach_the_model(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    secret = "sk-proj-" + "Zx9" * 16
    exit_two = _script(
        tmp_path, "no-echo.sh", f"#!/bin/sh\necho 'no echo here (key {secret})' >&2\nexit 2\n"
    )
    deny = _script(
        tmp_path,
        "deny.py",
        f"#!{PY}\nimport json, sys\nevent = json.load(sys.stdin)\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
        "'permissionDecision': 'deny', 'permissionDecisionReason': "
        "'reading ' + event['tool_input']['file_path'] + ' is not allowed'}}))\n",
    )
    _hooks(home, _hook("PreToolUse", exit_two, "Bash") + _hook("PreToolUse", deny, "Read"))
    server.add(
        tool_call_reply("run_command", {"command": "echo hi"}),
        tool_call_reply("read_file", {"path": "notes.txt"}),
        text_reply("blocked twice"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert _prompt(rho)["result"]["reply"] == "blocked twice"
    bash, read = _results(server)
    assert bash.startswith("Tool call blocked: PreToolUse hook: no echo here (key ")
    assert secret not in bash and "REDACTED" in bash  # a hook's reason is redacted too
    assert read.startswith("Tool call blocked: PreToolUse hook: reading /")
    assert read.endswith("notes.txt is not allowed")
    runs = _runs(rho)
    assert [(r["event"], r["outcome"], r["verdict"]) for r in runs] == [
        ("PreToolUse", "blocked", "block"),
        ("PreToolUse", "blocked", "deny"),
    ]
    assert runs[0]["exitCode"] == 2 and runs[0]["source"].endswith("config.toml")
    assert secret not in json.dumps(runs)


def test_allow_skips_the_question_but_never_the_denylist_and_ask_asks(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    decide = _script(
        tmp_path,
        "decide.py",
        f"#!{PY}\nimport json, sys\nevent = json.load(sys.stdin)\n"
        "command = event['tool_input'].get('command', '')\n"
        "decision = 'ask' if 'ask me' in command else 'allow'\n"
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': decision, "
        "'permissionDecisionReason': 'the hook says ' + decision}}))\n",
    )
    _hooks(home, _hook("PreToolUse", decide, "Bash"))
    server.add(
        tool_call_reply("run_command", {"command": "echo allowed > out.txt"}),
        tool_call_reply("run_command", {"command": "curl http://127.0.0.1:9/"}),
        tool_call_reply("run_command", {"command": "echo 'ask me'"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt = rho.request("prompt", {"message": "go"})
    asked = rho.notification("approval/request")["params"]
    assert asked["tool"] == "run_command" and "ask me" in asked["arguments"]
    assert asked["reason"] == "PreToolUse hook: the hook says ask"
    rho.answer_approval(asked)
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    assert rho.methods_seen().count("approval/request") == 1  # only the call that asked
    _, curl, ask = _results(server)
    assert (project / "out.txt").read_text() == "allowed\n"
    assert curl.startswith("run_command: command denied: 'curl' is on the denylist")
    assert "ask me" in ask
    approved = [m["params"] for m in rho.seen if m.get("method") == "tool/approved"]
    assert [a["approvedBy"] for a in approved] == ["PreToolUse hook: the hook says allow"] * 2
    assert approved[0]["source"] == "plugin rho-hooks"


def test_updated_input_is_checked_again_and_a_rewrite_into_git_is_refused(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    rewrite = _script(
        tmp_path,
        "rewrite.py",
        f"#!{PY}\nimport json, sys\nevent = json.load(sys.stdin)\n"
        "target = event['tool_input']['content'].strip()\n"
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'ask', "
        "'updatedInput': {'file_path': event['cwd'] + '/' + target}}}))\n",
    )
    _hooks(home, _hook("PreToolUse", rewrite, "Write"))
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "b.txt\n"}),
        tool_call_reply("write_file", {"path": "a.txt", "content": ".git/config\n"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt = rho.request("prompt", {"message": "go"})
    first = rho.notification("approval/request")["params"]
    assert json.loads(first["arguments"]) == {"path": "b.txt", "content": "b.txt\n"}
    rho.answer_approval(first)
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    # The rewrite into .git is refused as the call is checked, before anyone is asked.
    assert rho.methods_seen().count("approval/request") == 1
    written, refused = _results(server)
    assert written.startswith("wrote 6 bytes to b.txt")
    assert refused.startswith("write_file:") and ".git" in refused
    assert (project / "b.txt").read_text() == "b.txt\n" and not (project / "a.txt").exists()
    assert not (project / ".git" / "config").exists()  # (the fixture's .git is empty)


def test_prompt_hooks_add_context_and_block_and_post_tool_use_blocks(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    submit = _script(
        tmp_path,
        "submit.sh",
        "#!/bin/sh\nif grep -q secret; then echo 'no secrets in prompts' >&2; exit 2; fi\n"
        'echo \'{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", '
        '"additionalContext": "The deploy branch is release."}}\'\n',
    )
    post = _script(tmp_path, "post.sh", "#!/bin/sh\necho 'lint failed on a.txt' >&2\nexit 2\n")
    _hooks(home, _hook("UserPromptSubmit", submit) + _hook("PostToolUse", post, "Edit|Write"))
    server.add(tool_call_reply("write_file", {"path": "a.txt", "content": "x\n"}), text_reply("ok"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--approval-mode", "auto")
    refused = _prompt(rho, "here is my secret")["result"]
    assert "UserPromptSubmit hook: no secrets in prompts" in refused["error"]
    assert [r for r in server.requests if r.method == "POST"] == []
    assert _prompt(rho, "write a")["result"]["reply"] == "ok"
    first = next(r for r in server.requests if r.method == "POST").json["messages"]
    assert first[-2] == {"role": "user", "content": "write a"}
    assert "The deploy branch is release." in first[-1]["content"]
    [result] = _results(server)
    assert result.startswith("wrote 2 bytes") and "PostToolUse hook: lint failed on a.txt" in result
    assert (project / "a.txt").exists()  # the write happened; the model is told


def test_a_stop_hook_keeps_the_model_going_at_most_the_bound(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "stop-inputs"
    keep_going = _script(
        tmp_path,
        "stop.py",
        f"#!{PY}\nimport json, sys\nevent = json.load(sys.stdin)\n"
        f"open({str(seen)!r}, 'a').write(json.dumps(event['stop_hook_active']) + '\\n')\n"
        "print(json.dumps({'decision': 'block', 'reason': 'the tests still fail'}))\n",
    )
    _hooks(home, "[hooks]\nmax_stop_continuations = 2\n\n" + _hook("Stop", keep_going))
    server.add(text_reply("done"), text_reply("still done"), text_reply("really done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert _prompt(rho)["result"]["reply"] == "really done"
    posts = [r for r in server.requests if r.method == "POST"]
    assert len(posts) == 3
    assert posts[1].json["messages"][-1] == {"role": "user", "content": "the tests still fail"}
    assert seen.read_text().split() == ["false", "true"]  # the third stop is not asked


def test_failing_hooks_block_unless_they_allow_it(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    crash = _script(tmp_path, "crash.sh", "#!/bin/sh\necho oops >&2\nexit 1\n")
    hang = _script(tmp_path, "hang.sh", "#!/bin/sh\nsleep 60\n")
    garbage = _script(tmp_path, "garbage.sh", "#!/bin/sh\necho '{not json'\n")
    lenient = _script(tmp_path, "lenient.sh", "#!/bin/sh\nexit 1\n")
    _hooks(
        home,
        _hook("PreToolUse", crash, "Read")
        + _hook("PreToolUse", hang, "Glob", timeout=1)
        + _hook("PreToolUse", garbage, "LS")
        + _hook("PreToolUse", lenient, "Grep", on_failure="allow"),
    )
    server.add(
        tool_call_reply("read_file", {"path": "x"}),
        tool_call_reply("find_files", {"pattern": "*.txt"}),
        tool_call_reply("list_dir", {}),
        tool_call_reply("search_files", {"pattern": "nothing-here"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert _prompt(rho)["result"]["reply"] == "done"
    read, find, listing, search = _results(server)
    assert read.startswith("Tool call blocked: PreToolUse hook:") and "exited with 1" in read
    assert "oops" in read
    assert find.startswith("Tool call blocked:") and "timed out" in find
    assert listing.startswith("Tool call blocked:") and "JSON" in listing
    assert not search.startswith("Tool call blocked")
    outcomes = [r["outcome"] for r in _runs(rho)]
    assert outcomes == ["failed", "failed", "failed", "allowed-failure"]
    assert "Traceback" not in rho.stderr_text()


def test_a_hook_printing_10_mb_of_json_fails_closed_saying_it_was_too_large(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    # An "allow" at the head of 10 MB of JSON does not pass: the answer cannot be read whole.
    big = _script(
        tmp_path,
        "big.py",
        f"#!{PY}\nimport json, sys\nsys.stdin.read()\n"
        "sys.stdout.write(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
        "'permissionDecision': 'allow'}, 'pad': 'x' * 10_000_000}))\n",
    )
    _hooks(
        home,
        _hook("PreToolUse", big, "Write") + _hook("PreToolUse", big, "LS", on_failure="allow"),
    )
    server.add(
        tool_call_reply("write_file", {"path": "w.txt", "content": "x"}),
        tool_call_reply("list_dir", {}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert _prompt(rho)["result"]["reply"] == "done"
    write, listing = _results(server)
    assert write.startswith("Tool call blocked: PreToolUse hook: hook `")
    assert "printed too much to read as its JSON answer: 100000" in write
    assert "more than the limit of 65536 bytes (64 KiB)" in write
    assert "invalid JSON" not in write and "control character" not in write
    assert not (project / "w.txt").exists()
    assert not listing.startswith("Tool call blocked")  # it allows its own failure
    assert [r["outcome"] for r in _runs(rho)] == ["failed", "allowed-failure"]
    assert not any(m.get("method") == "approval/request" for m in rho.seen)


def test_an_untrusted_repositorys_hooks_do_not_run_and_are_listed(
    start_rho: Any, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text(_hook("UserPromptSubmit", f"touch {marker}"))
    server.add(text_reply("ok"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert _prompt(rho)["result"]["reply"] == "ok"
    assert not marker.exists()
    [listed] = rho.call("listHooks")["result"]["hooks"]
    assert (listed["event"], listed["origin"], listed["trusted"]) == (
        "UserPromptSubmit",
        "project",
        False,
    )
    assert rho.finish() == 0
    assert "rho trust" in rho.stderr_text()  # the trust warning names the remedy


@pytest.mark.usefixtures("run_anyway")
def test_a_claude_code_script_from_settings_json_blocks_run_command(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path
) -> None:
    script = _docs_script("guard-commands.sh", home)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": script}]}
                    ]
                }
            }
        )
    )
    _hooks(home, "[hooks]\nclaude_settings = true\n")
    (project / "keep.txt").write_text("keep")
    server.add(
        tool_call_reply("run_command", {"command": "rm -rf keep.txt"}),
        tool_call_reply("run_command", {"command": "echo fine"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral", "--approval-mode", "auto")
    assert _prompt(rho)["result"]["reply"] == "done"
    removal, fine = _results(server)
    assert removal.startswith("Tool call blocked: PreToolUse hook: Blocked:")
    assert "fine" in fine and (project / "keep.txt").exists()
    assert rho.call("listHooks")["result"]["hooks"][0]["origin"] == "claude-user"


def _docs_script(name: str, folder: Path) -> str:
    """The example script `name` of docs/hooks.md, written to `folder`."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "hooks.md").read_text()
    marker = f"<!-- {name} -->"
    block = text.split(marker, 1)[1].split("```", 2)[1]
    body = block.split("\n", 1)[1]  # drop the fence's language
    return _script(folder, name, body)


def test_the_matching_hooks_run_in_parallel(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    # Each waits for the other's flag: run one after the other, both would time out.
    def meet(mine: str, theirs: str) -> str:
        return _script(
            tmp_path,
            f"{mine}.sh",
            f"#!/bin/sh\ntouch {tmp_path / mine}\n"
            f"while [ ! -e {tmp_path / theirs} ]; do sleep 0.05; done\n",
        )

    _hooks(
        home,
        _hook("PreToolUse", meet("a", "b"), timeout=60)
        + _hook("PreToolUse", meet("b", "a"), timeout=60),
    )
    server.add(tool_call_reply("list_dir", {}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert _prompt(rho)["result"]["reply"] == "done"
    [listing] = _results(server)
    assert not listing.startswith("Tool call blocked")
    assert [r["outcome"] for r in _runs(rho)] == ["ok", "ok"]


def test_an_abort_kills_a_running_hook(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "hook.pid"
    slow = _script(
        tmp_path,
        "slow.sh",
        f"#!/bin/sh\necho $$ > {pid_file}.tmp\nmv {pid_file}.tmp {pid_file}\nexec sleep 600\n",
    )
    _hooks(home, _hook("PreToolUse", slow, timeout=600))
    server.add(tool_call_reply("list_dir", {}), text_reply("never"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt = rho.request("prompt", {"message": "go"})
    deadline = time.monotonic() + 60
    while not pid_file.exists():  # the hook has started
        assert time.monotonic() < deadline, rho.stderr_text()
        time.sleep(0.02)
    pid = int(pid_file.read_text())
    rho.call("abort")
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    deadline = time.monotonic() + 60
    while _alive(pid):
        assert time.monotonic() < deadline, f"hook process {pid} still runs"
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[-1].startswith("Z"))


def test_the_docs_protected_paths_guard_and_formatter_work_as_documented(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path
) -> None:
    guard = _docs_script("protect-paths.py", home)
    formatter = _docs_script("format-after-edit.sh", home)
    _hooks(
        home,
        _hook("PreToolUse", guard, "Edit|Write") + _hook("PostToolUse", formatter, "Edit|Write"),
    )
    server.add(
        tool_call_reply("write_file", {"path": ".env", "content": "TOKEN=x\n"}),
        tool_call_reply("write_file", {"path": "db/migrations/0001.sql", "content": "drop;\n"}),
        tool_call_reply("write_file", {"path": "tidy.py", "content": "x=1\n"}),
        text_reply("done"),
    )
    venv_bin = str(Path(sys.executable).parent)
    path = f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    rho = start_scripted(
        start_rho, server, "--ephemeral", "--approval-mode", "auto", env={"PATH": path}
    )
    assert _prompt(rho)["result"]["reply"] == "done"
    env_file, migration, tidy = _results(server)
    assert (
        env_file.startswith("Tool call blocked: PreToolUse hook: ")
        and ".env is protected" in env_file
    )
    assert "migrations/0001.sql is protected" in migration
    assert tidy.startswith("wrote 4 bytes to tidy.py")
    assert not (project / ".env").exists() and not (project / "db").exists()
    assert (project / "tidy.py").read_text() == "x = 1\n"  # formatted after the write


def test_session_compaction_and_notification_hooks_run(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "events.log"
    record = _script(
        tmp_path,
        "record.py",
        f"#!{PY}\nimport json, sys\nevent = json.load(sys.stdin)\n"
        "detail = event.get('source') or event.get('trigger') or event.get('message') or ''\n"
        f"open({str(log)!r}, 'a').write(event['hook_event_name'] + ' ' + detail + '\\n')\n"
        "if event['hook_event_name'] == 'SessionStart':\n"
        "    print('The build command is make.')\n",
    )
    _hooks(
        home,
        "".join(
            _hook(event, record)
            for event in ("SessionStart", "SessionEnd", "PreCompact", "Notification")
        ),
    )
    server.add(
        text_reply("one"),
        tool_call_reply("write_file", {"path": "a.txt", "content": "a"}),
        text_reply("two"),
    )
    rho = start_scripted(start_rho, server)
    assert _prompt(rho, "first")["result"]["reply"] == "one"
    first = next(r for r in server.requests if r.method == "POST").json["messages"]
    assert "The build command is make." in first[-1]["content"]
    prompt = rho.request("prompt", {"message": "write"})
    rho.answer_approval(rho.notification("approval/request")["params"], approved=False)
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    rho.call("compact")
    assert rho.finish() == 0
    lines = log.read_text().splitlines()
    assert lines[0] == "SessionStart startup" and lines[-1] == "SessionEnd "
    assert "Notification rho needs your permission to use Write" in lines
    assert "PreCompact manual" in lines


def test_with_no_hooks_nothing_of_the_pack_runs_or_loads(
    project: Path, home: Path, tmp_path: Path
) -> None:
    from test_startup_imports import (  # type: ignore[import-not-found]
        READY_AFTER_LOAD,
        modules_at_ready,
    )

    # The plugins are loaded when `ready` comes after the runtime (see READY_AFTER_LOAD).
    loaded = modules_at_ready(project, home, tmp_path, *READY_AFTER_LOAD)
    assert sorted(m for m in loaded if m.startswith("rho_hooks")) == [
        "rho_hooks",
        "rho_hooks.config",
        "rho_hooks.plugin",
    ]
