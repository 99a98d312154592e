"""JSON-RPC 2.0 conformance of the real `rho` process, hostile input included.

The tests that only send lines and read the answers talk to one `rho` of the module in
turn (`protocol_rho`): each turn is checked against docs/openrpc.json and for strict JSON
lines on stdout, and the process must end cleanly (exit 0, no traceback) on end of input
after all of them. Tests that need a process of their own (startup flags and errors, end of
input, a byte order mark at the start of input, a model server) start one.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from protocol_rho import ProtocolRho, assert_strict_json_lines  # type: ignore[import-not-found]
from rho_process import (  # type: ignore[import-not-found]
    RHO,
    RhoProcess,
    install_plugin,
    plugin_env,
)

from rho_kernel.testing import ScriptedServer, text_reply


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProtocolRho]:
    serving = ProtocolRho(["--ephemeral", "-m", "my-model"], tmp_path_factory.mktemp("protocol"))
    yield serving
    serving.close()  # exit 0 on end of input, no traceback, strict JSON lines only


@pytest.fixture
def rho(shared: ProtocolRho) -> Iterator[RhoProcess]:
    with shared.turn() as process:
        yield process


def test_ready_comes_first_and_names_the_model(shared: ProtocolRho, rho: RhoProcess) -> None:
    first = shared.ready  # the first line the process wrote; its clean exit: `shared.close`
    assert first["jsonrpc"] == "2.0" and first["method"] == "ready" and "id" not in first
    assert first["params"]["model"] == "my-model"
    assert first["params"]["sessionPath"] == ""


def test_parse_error_has_null_id(rho: RhoProcess) -> None:
    rho.send_raw(b"this is not json\n")
    response = rho.read()
    assert response["id"] is None and response["error"]["code"] == -32700


def test_invalid_utf8_is_a_parse_error(rho: RhoProcess) -> None:
    rho.send_raw(b'{"jsonrpc":"2.0","method":"getState","id":1,"x":"\xff"}\n')
    assert rho.read()["error"]["code"] == -32700


_INVALID_REQUESTS = [
    ({"method": "getState", "id": 7}, 7),  # no jsonrpc
    ({"jsonrpc": "1.0", "method": "getState", "id": "a"}, "a"),
    ({"jsonrpc": "2.0", "method": 5, "id": 8}, 8),
    ({"jsonrpc": "2.0", "id": 9}, 9),  # no method
    ({"jsonrpc": "2.0", "method": "getState", "id": {"x": 1}}, None),  # bad id type
    ({"jsonrpc": "2.0", "method": "getState", "id": True}, None),
    ({"jsonrpc": "2.0", "method": "getState", "params": "str", "id": 10}, 10),
]


def test_invalid_requests(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    for message, expected_id in _INVALID_REQUESTS:
        rho.send(message)
        response = rho.read()
        assert response["error"]["code"] == -32600
        assert response["id"] == expected_id


def test_non_object_message_is_invalid(rho: RhoProcess) -> None:
    rho.send_raw(b"42\n")
    response = rho.read()
    assert response == {"jsonrpc": "2.0", "error": response["error"], "id": None}
    assert response["error"]["code"] == -32600


def test_unknown_method(rho: RhoProcess) -> None:
    response = rho.call("frobnicate")
    assert response["error"] == {"code": -32601, "message": "Method not found: frobnicate"}


def test_notifications_get_no_response_even_when_unknown(rho: RhoProcess) -> None:
    before = len(rho.seen)
    rho.send({"jsonrpc": "2.0", "method": "frobnicate"})
    rho.send({"jsonrpc": "2.0", "method": "getState"})
    response = rho.call("getState")
    assert "result" in response
    assert [m for m in rho.seen[before:] if "id" in m] == [response]


_INVALID_PARAMS = [
    ({}, "message"),
    ({"message": 5}, "message"),
    ({"message": ""}, "message"),
    ({"message": "   "}, "blank"),
    ({"message": "hi", "steer": "yes"}, "steer"),
]


def test_invalid_params(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    for params, fragment in _INVALID_PARAMS:
        response = rho.call("prompt", params)
        assert response["error"]["code"] == -32602
        assert fragment in response["error"]["message"]


_UNKNOWN_PARAMS = [
    ("prompt", {"message": "x", "stear": True},
     "Invalid params: stear: unknown param (did you mean 'steer'?)"),
    ("getTree", {"limt": 5}, "Invalid params: limt: unknown param (did you mean 'limit'?)"),
    ("getState", {"verbose": True},
     "Invalid params: verbose: unknown param: the method takes no params"),
    ("approvalResponse", {"approvalId": "a", "approved": False, "mesage": "no"},
     "Invalid params: mesage: unknown param (did you mean 'message'?)"),
]  # fmt: skip


def test_an_unknown_param_is_refused_naming_it(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    before = len(rho.seen)
    for method, params, message in _UNKNOWN_PARAMS:
        error = rho.call(method, params)["error"]
        assert error["code"] == -32602
        assert error["message"] == message
        assert not [m for m in rho.seen[before:] if m.get("method") == "agent/start"]


def test_positional_params_are_refused(rho: RhoProcess) -> None:
    assert rho.call("prompt", ["hi"])["error"]["code"] == -32602  # type: ignore[arg-type]


def test_batch(rho: RhoProcess) -> None:
    rho.send(
        [
            {"jsonrpc": "2.0", "method": "getState", "id": 1},
            {"jsonrpc": "2.0", "method": "getState"},
            {"jsonrpc": "2.0", "method": "nope", "id": 2},
            1,
        ]
    )
    batch = rho.read()
    assert isinstance(batch, list) and len(batch) == 3
    by_id = {str(r["id"]): r for r in batch}
    assert "result" in by_id["1"]
    assert by_id["2"]["error"]["code"] == -32601
    assert by_id["None"]["error"]["code"] == -32600


def test_empty_batch_and_notification_only_batch(rho: RhoProcess) -> None:
    rho.send_raw(b"[]\n")
    assert rho.read()["error"]["code"] == -32600
    rho.send([{"jsonrpc": "2.0", "method": "getState"}])
    response = rho.call("getState")
    assert "result" in response


def test_deeply_nested_and_oversize_lines(rho: RhoProcess) -> None:
    rho.send_raw(b"[" * 200_000 + b"\n")
    assert rho.read()["error"]["code"] == -32700
    rho.send_raw(b'{"x":"' + b"a" * (17 * 1024 * 1024) + b'"}\n')
    response = rho.read(timeout=60)
    assert response["error"]["code"] == -32600 and "too large" in response["error"]["message"]
    assert "result" in rho.call("getState")


def test_end_of_input_exits_cleanly_without_traceback(start_rho) -> None:  # type: ignore[no-untyped-def]
    rho = start_rho("--ephemeral")
    assert rho.read()["method"] == "ready"
    rho.send_raw(b"garbage\n")
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert "Traceback" not in stderr
    assert all(json.loads(line) for line in rho.raw)  # stdout is protocol only


def test_list_tools_and_plugins(rho: RhoProcess) -> None:
    tools = {t["name"]: t for t in rho.call("listTools")["result"]["tools"]}
    assert tools["read_file"]["risk"] == "read"
    assert tools["write_file"]["risk"] == "write"
    assert tools["read_file"]["plugin"] == "rho-tools-fs"
    assert "path" in tools["read_file"]["parameters"]["properties"]
    plugins = {p["name"]: p for p in rho.call("listPlugins")["result"]["plugins"]}
    assert {"rho.providers", "rho.approval", "rho-rpc", "rho-tools-fs"} <= set(plugins)
    assert "rho_register_tools" in plugins["rho-tools-fs"]["hooks"]


def test_get_state_and_messages(shared: ProtocolRho, rho: RhoProcess) -> None:
    project = shared.project
    state = rho.call("getState")["result"]
    assert state["cwd"] == str(project)
    assert state["messageCount"] == 1
    assert state["busy"] is False
    messages = rho.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system"]
    assert str(project) in messages[0]["content"]


def test_approval_response_outside_a_flow_approves_nothing(rho: RhoProcess) -> None:
    error = rho.call("approvalResponse", {"approvalId": "ap_123", "approved": True})["error"]
    assert error["code"] == -32001 and "not pending" in error["message"]
    assert rho.call("abort")["result"] == {}


@pytest.fixture(scope="module")
def version_run(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """`rho --version` with a third-party pack installed next to rho's own."""
    site = tmp_path_factory.mktemp("version") / "site"
    install_plugin(site, "acme_tools", "acme", "")
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([RHO, "--version"], capture_output=True, text=True, timeout=30, env=env)


def test_version_and_help(version_run: subprocess.CompletedProcess[str]) -> None:
    version = version_run
    assert version.returncode == 0 and version.stdout.startswith("rho ")
    help_text = subprocess.run([RHO, "--help"], capture_output=True, text=True, timeout=30)
    for flag in (
        "--model",
        "--endpoint",
        "--api-key-env",
        "--ephemeral",
        "--continue",
        "--session",
        "--root",
    ):
        assert flag in help_text.stdout


def test_version_names_rho_and_every_installed_pack(
    version_run: subprocess.CompletedProcess[str],
) -> None:
    from importlib.metadata import version

    done = version_run
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"rho {version('rho-rpc')}"
    for name in ("rho-kernel", "rho-tools-fs", "rho-memory", "rho-ext-js", "rho-tools-rust"):
        assert f"  {name} {version(name)}" in lines
    assert "  acme-tools 0.1 (third-party)" in lines
    assert done.stderr == ""


def test_mutually_exclusive_session_flags(start_rho) -> None:  # type: ignore[no-untyped-def]
    process = start_rho("--ephemeral", "-c")
    assert process.finish() == 2
    assert "not allowed with" in process.stderr_text()


def test_invalid_config_is_a_clear_startup_error(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text('[agent]\nmax_iterations = "lots"\n')
    process = start_rho()
    assert process.finish() == 2
    stderr = process.stderr_text()
    assert "config.toml" in stderr and "agent.max_iterations" in stderr
    assert "Traceback" not in stderr
    assert process.raw == []


def test_continue_without_a_session_is_a_clear_error(start_rho) -> None:  # type: ignore[no-untyped-def]
    process = start_rho("-c")
    assert process.finish() == 2
    assert "no previous session" in process.stderr_text()


def test_a_broken_plugin_is_skipped_and_rho_still_starts(start_rho, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    dist = site / "broken_rho_plugin-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-rho-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[rho]\nbroken = broken_rho_plugin\n")
    (site / "broken_rho_plugin.py").write_text("import does_not_exist_anywhere\n")
    process = start_rho("--ephemeral", env=plugin_env(site, "broken"))
    assert process.read()["method"] == "ready"
    failed = process.call("listPlugins")["result"]["failed"]
    assert failed and failed[0]["name"] == "broken"
    assert failed[0]["distribution"] == "broken-rho-plugin"
    assert process.finish() == 0
    stderr = process.stderr_text()
    assert "plugin 'broken' (broken-rho-plugin 0.1) skipped" in stderr
    assert "does_not_exist_anywhere" in stderr
    assert "Traceback" not in stderr


def test_unwritable_sessions_directory_is_a_clear_startup_error(start_rho, home: Path) -> None:  # type: ignore[no-untyped-def]
    (home / ".rho").write_text("a file where the .rho directory should be")
    process = start_rho()
    assert process.finish() == 2
    stderr = process.stderr_text()
    assert stderr.startswith("rho: error:") and "Traceback" not in stderr
    assert process.raw == []


# ── hostile input cannot wedge the server ──────────────────────────────────
#
# The shared rho's turns check that stdout holds strict JSON lines only; its clean exit
# after all of them is checked when the module is done. The tests with a process of their
# own check both for it.


def _assert_clean_exit(rho: RhoProcess) -> None:
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()
    assert rho.raw
    assert_strict_json_lines(rho.raw)


def test_lone_surrogates_in_id_and_method_are_replaced_and_answered(rho: RhoProcess) -> None:
    rho.send({"jsonrpc": "2.0", "method": "getState", "id": "a\ud800"})
    response = rho.read()
    assert response["id"] == "a\ufffd" and "result" in response
    rho.send({"jsonrpc": "2.0", "method": "x\ud800", "id": 5})
    response = rho.read()
    assert response["id"] == 5
    assert response["error"] == {"code": -32601, "message": "Method not found: x\ufffd"}
    rho.send([{"jsonrpc": "2.0", "method": "getState", "id": "\udc00b"}])
    assert rho.read()[0]["id"] == "\ufffdb"  # type: ignore[index]
    assert "result" in rho.call("getState")


@pytest.fixture(scope="module")
def model_server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture(scope="module")
def shared_prompting(
    tmp_path_factory: pytest.TempPathFactory, model_server: ScriptedServer
) -> Iterator[ProtocolRho]:
    """A rho with a model to prompt, saving its sessions, for the tests that prompt."""
    args = ["--endpoint", model_server.chat_url, "-m", "scripted-model"]
    serving = ProtocolRho(args, tmp_path_factory.mktemp("prompting"))
    yield serving
    serving.close()


@pytest.fixture
def prompting(shared_prompting: ProtocolRho) -> Iterator[RhoProcess]:
    with shared_prompting.turn() as process:
        assert "result" in process.call("newSession")  # a session of the test's own
        yield process


def _chats(server: ScriptedServer, start: int) -> list[Any]:
    """The chat requests the server got from the `start`-th on."""
    return [r for r in server.requests[start:] if r.json and "messages" in r.json]


def test_a_prompt_with_a_lone_surrogate_does_not_break_later_prompts(
    prompting: RhoProcess, model_server: ScriptedServer
) -> None:
    rho, server = prompting, model_server
    asked = len(server.requests)
    server.add(text_reply("first"), text_reply("second"))
    assert rho.call("prompt", {"message": "odd \ud83d text"})["result"]["reply"] == "first"
    assert rho.call("prompt", {"message": "plain"})["result"]["reply"] == "second"
    sent = [m["content"] for m in _chats(server, asked)[1].json["messages"] if m["role"] == "user"]
    assert sent == ["odd \ufffd text", "plain"]
    history = rho.call("getMessages")["result"]["messages"]
    assert [m["content"] for m in history if m["role"] == "user"] == sent


_NON_STANDARD_NUMBERS = [
    (b'{"jsonrpc":"2.0","method":"getState","id":NaN}', "NaN"),
    (b'{"jsonrpc":"2.0","method":"getState","id":Infinity}', "Infinity"),
    (b'{"jsonrpc":"2.0","method":"getState","id":-Infinity}', "-Infinity"),
    (b'{"jsonrpc":"2.0","method":"getState","id":1e400}', "1e400"),
    (b'{"jsonrpc":"2.0","method":"getState","id":-1E+999}', "-1E+999"),
    (b'{"jsonrpc":"2.0","method":"getState","id":1,"params":{"x":[2.5e308]}}', "2.5e308"),
    (b'[{"jsonrpc":"2.0","method":"getState","id":NaN}]', "NaN"),
    (b'[{"jsonrpc":"2.0","method":"getState","id":1e400}]', "1e400"),
]


def test_non_standard_numbers_are_parse_errors(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    for line, fragment in _NON_STANDARD_NUMBERS:
        rho.send_raw(line + b"\n")
        response = rho.read()
        assert isinstance(response, dict) and response["id"] is None
        assert response["error"]["code"] == -32700
        assert fragment in response["error"]["message"]
        assert "result" in rho.call("getState")


def test_a_batch_over_the_limit_is_one_invalid_request(rho: RhoProcess) -> None:
    member = {"jsonrpc": "2.0", "method": "getState", "id": 1}
    rho.send([member] * 1000)
    full = rho.read()
    assert isinstance(full, list) and len(full) == 1000
    rho.send([member] * 1001)
    response = rho.read()
    assert response == {
        "jsonrpc": "2.0",
        "error": {
            "code": -32600,
            "message": "Invalid Request: a batch holds at most 1000 requests",
        },
        "id": None,
    }
    assert "result" in rho.call("getState")


def test_a_huge_batch_line_is_refused_without_decoding_it_all(rho: RhoProcess) -> None:
    # 8 million members in 16 MB: decoding and answering them all took minutes and gigabytes.
    rho.send_raw(b"[" + b"1," * 7_999_999 + b"1]\n")
    response = rho.read(timeout=60)
    assert isinstance(response, dict) and response["error"]["code"] == -32600
    assert "at most 1000" in response["error"]["message"]
    assert "result" in rho.call("getState")


def test_an_oversize_request_gets_its_id_back(rho: RhoProcess) -> None:
    huge = b"x" * (17 * 1024 * 1024)
    rho.send_raw(
        b'{"jsonrpc":"2.0","id":7,"method":"prompt","params":{"message":"' + huge + b'"}}\n'
    )
    response = rho.read(timeout=60)
    assert response["id"] == 7 and response["error"]["code"] == -32600
    assert "too large" in response["error"]["message"]
    # An "id" inside params is not the request's id.
    rho.send_raw(
        b'{"jsonrpc":"2.0","method":"prompt","params":{"id":3,"message":"' + huge + b'"}}\n'
    )
    response = rho.read(timeout=60)
    assert response["id"] is None and response["error"]["code"] == -32600
    assert "result" in rho.call("getState")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_input_is_a_parse_error(rho: RhoProcess, encoding: str) -> None:
    request = json.dumps({"jsonrpc": "2.0", "method": "getState", "id": 1})
    rho.send_raw(request.encode(encoding) + b"\n")
    response = rho.read()
    assert response["id"] is None and response["error"]["code"] == -32700
    assert "UTF-8" in response["error"]["message"]
    assert "result" in rho.call("getState")


def test_a_byte_order_mark_is_accepted_only_at_the_start_of_input(start_rho) -> None:  # type: ignore[no-untyped-def]
    rho = start_rho("--ephemeral")
    assert rho.read()["method"] == "ready"
    bom = "\ufeff".encode()
    rho.send_raw(bom + b'{"jsonrpc":"2.0","method":"getState","id":1}\n')
    response = rho.read()
    assert response["id"] == 1 and "result" in response
    rho.send_raw(bom + b'{"jsonrpc":"2.0","method":"getState","id":2}\n')
    response = rho.read()
    assert response["id"] is None and response["error"]["code"] == -32700
    assert "byte order mark" in response["error"]["message"]
    _assert_clean_exit(rho)


# ── ids echoed exactly as written, repeated keys refused ─────────────────────


def _raw_reply(rho: RhoProcess, line: bytes) -> bytes:
    """The raw line rho answers `line` with."""
    rho.send_raw(line + b"\n")
    rho.read()
    return rho.raw[-1].rstrip(b"\n")


_ECHOED_IDS = [
    b"7",
    b"0",
    b"-12",
    b'"x"',
    b"null",
    b"123456789012345678901234567890",  # past 64 bits: echoed digit for digit
    b"-98765432109876543210987654321",
    b"9" * 4000,
]


def test_an_id_is_echoed_exactly_as_written(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    for id_text in _ECHOED_IDS:
        reply = _raw_reply(rho, b'{"jsonrpc":"2.0","method":"getState","id":' + id_text + b"}")
        assert b'"result"' in reply and reply.endswith(b',"id":' + id_text + b"}")
        # In an error response for malformed params too.
        line = b'{"jsonrpc":"2.0","method":"setModel","params":{"model":5},"id":' + id_text + b"}"
        reply = _raw_reply(rho, line)
        assert b'"code":-32602' in reply and reply.endswith(b',"id":' + id_text + b"}")


_UNECHOABLE_IDS = [
    b"1e-400",
    b"1.0",
    b"1E2",
    b"1e+2",
    b"-0",
    b"-0.0",
    b"0.5",
    b"2.5E-3",
    b"1e308",
    b"-1.5",
]


def test_an_id_that_cannot_be_echoed_as_written_is_refused(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    for id_text in _UNECHOABLE_IDS:
        for line in (
            b'{"jsonrpc":"2.0","method":"getState","id":' + id_text + b"}",
            # The id's problem comes first, whatever else is wrong.
            b'{"jsonrpc":"2.0","method":"setModel","params":{"model":5},"id":' + id_text + b"}",
            b'{"jsonrpc":"2.0","method":"getState","params":"str","id":' + id_text + b"}",
        ):
            reply = _raw_reply(rho, line)
            response = json.loads(reply)
            assert response["id"] is None and reply.endswith(b',"id":null}')
            assert response["error"]["code"] == -32600
            assert "id must be a string, null or an integer" in response["error"]["message"]
        assert "result" in rho.call("getState")


def test_ids_in_a_batch_are_echoed_exactly_or_refused(rho: RhoProcess) -> None:
    members = [b"1e-400", b"12345678901234567890123", b"-0", b'"s"', b"1.0", b"3"]
    line = (
        b"["
        + b",".join(b'{"jsonrpc":"2.0","method":"getState","id":' + m + b"}" for m in members)
        + b"]"
    )
    reply = _raw_reply(rho, line)
    ids = [part.split(b"}")[0] for part in reply.split(b',"id":')[1:]]
    assert ids == [b"null", b"12345678901234567890123", b"null", b'"s"', b"null", b"3"]
    codes = [r.get("error", {}).get("code") for r in json.loads(reply)]
    assert codes == [-32600, None, -32600, None, -32600, None]


_REPEATED_KEYS = [
    (b'{"jsonrpc":"2.0","method":"getState","method":"prompt","id":3}', 3, "method"),
    (b'{"jsonrpc":"2.0","id":1,"id":2,"method":"getState"}', None, "id"),
    (b'{"jsonrpc":"2.0","id":1,"method":"getState","id":1}', None, "id"),  # same value
    (b'{"jsonrpc":"2.0","jsonrpc":"2.0","id":6,"method":"getState"}', 6, "jsonrpc"),
    (b'{"jsonrpc":"2.0","id":7,"method":"getState","\\u006dethod":"getState"}', 7, "method"),
    (
        b'{"jsonrpc":"2.0","id":4,"method":"setModel","params":{"model":"a","model":"b"}}',
        4,
        "model",
    ),
    (
        b'{"jsonrpc":"2.0","id":"n","method":"getTree","params":{"x":[{"k":{"a":1,"a":1}}]}}',
        "n",
        "a",
    ),
    (b'{"jsonrpc":"2.0","id":8,"method":"getState","params":{},"params":{}}', 8, "params"),
    (
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"getState","extra":{"b":1,"b":2}}',
        "\ufffd",
        "b",
    ),
    (b'{"jsonrpc":"2.0","method":"getState","method":"abort"}', None, "method"),  # notification
    # Two keys that differ only in lone surrogates become one key once they are replaced.
    (
        b'{"jsonrpc":"2.0","id":10,"method":"getState","params":{"\\ud800":1,"\\udc00":2}}',
        10,
        "\ufffd",
    ),
    (b'{"jsonrpc":"2.0","method":"nope","id":9,"params":{"a":1,"a":2}}', 9, "a"),
]


def test_a_repeated_key_is_refused_with_the_right_id(rho: RhoProcess) -> None:
    # One rho answers every case in turn, each checked as it comes (a rho per case
    # cost ~0.7 s of CPU each).
    for line, expected_id, key in _REPEATED_KEYS:
        response = json.loads(_raw_reply(rho, line))
        assert response["id"] == expected_id
        assert response["error"]["code"] == -32600
        assert f"the key {key!r} appears more than once" in response["error"]["message"]
        assert "result" in rho.call("getState")


def test_repeated_keys_in_a_batch_refuse_only_their_member(rho: RhoProcess) -> None:
    line = (
        b'[{"jsonrpc":"2.0","id":1,"method":"getState","params":{"a":1,"a":2}},'
        b'{"jsonrpc":"2.0","id":2,"method":"getState"},'
        b'{"jsonrpc":"2.0","id":3,"id":4,"method":"getState"},'
        b'[{"x":1,"x":1}],'
        b'{"jsonrpc":"2.0","id":5,"method":"getState"}]'
    )
    batch = json.loads(_raw_reply(rho, line))
    assert [(r["id"], r.get("error", {}).get("code")) for r in batch] == [
        (1, -32600),
        (2, None),
        (None, -32600),
        (None, -32600),
        (5, None),
    ]


def test_a_prompt_with_a_repeated_key_never_reaches_the_model(
    prompting: RhoProcess, model_server: ScriptedServer
) -> None:
    rho, server = prompting, model_server
    asked = len(server.requests)
    server.add(text_reply("answered"))
    rho.send_raw(
        b'{"jsonrpc":"2.0","id":1,"method":"prompt",'
        b'"params":{"message":"shown to the approver","message":"sent to the model"}}\n'
    )
    response = rho.read()
    assert response["id"] == 1 and response["error"]["code"] == -32600
    assert rho.call("prompt", {"message": "plain"})["result"]["reply"] == "answered"
    chats = _chats(server, asked)
    sent = [m["content"] for r in chats for m in r.json["messages"] if m["role"] == "user"]
    assert sent == ["plain"]
