"""The V8 isolate of one extension: manifest, calls, limits and the JS environment it gets."""

from __future__ import annotations

import asyncio
import hashlib
import http.server
import json
import threading
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from rho_ext_js import isolate as isolate_module
from rho_ext_js.host import (
    ExtensionError,
    ExtensionMemoryError,
    ExtensionTimeout,
    HostApi,
    HostError,
    Limits,
)
from rho_ext_js.isolate import Isolate

#: A manifest in the book's format, plus a `js` tool that runs the body of an async function.
MANIFEST = """
({
  name: "sample",
  version: "1.2.3",
  tools: [
    {
      name: "echo",
      description: "Echo the query",
      risk: "read",
      parameters: { query: { type: "string", description: "What", required: true }, n: { type: "number" } },
      async execute(args) { return "echo:" + JSON.parse(args).query; },
    },
    { name: "info", description: "An object", risk: "write", execute: async () => ({ a: 1, b: ["x"] }) },
    {
      name: "fails",
      description: "Throws",
      risk: "destructive",
      async execute() {
        throw new Error("it broke");
      },
    },
    {
      name: "js",
      description: "Run code",
      risk: "read",
      execute: (code) => (0, eval)("(async () => {" + code + "})()"),
    },
  ],
  hooks: {
    async onLoad() { rho.log("info", "loaded"); },
    async onToolCall(args) { return "seen " + JSON.parse(args).toolName; },
  },
  commands: [{ name: "deploy", description: "Deploy", async handler(args) { return "deployed " + args; } }],
})
"""


class _Host(HostApi):
    """A host over a real directory; `fetch` does real HTTP."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.logs: list[tuple[str, str, Any]] = []
        self.contexts: list[Any] = []

    async def log(self, level: str, message: str, context: Any) -> None:
        self.logs.append((level, message, context))

    async def read_file(self, path: str, context: Any) -> str:
        self.contexts.append(context)
        target = self.root / path
        if not target.is_file():
            raise HostError(f"no such file: {path}")
        return target.read_text(encoding="utf-8")

    async def write_file(self, path: str, content: str, context: Any) -> None:
        (self.root / path).write_text(content, encoding="utf-8")

    async def run_command(self, cmd: str, args: list[str], context: Any) -> dict[str, Any]:
        process = await asyncio.create_subprocess_exec(
            cmd, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await process.communicate()
        return {"stdout": out.decode(), "stderr": err.decode(), "exitCode": process.returncode}

    async def fetch(self, request: dict[str, Any], context: Any) -> dict[str, Any]:
        def go() -> dict[str, Any]:
            body = request.get("body")
            req = urllib.request.Request(
                request["url"],
                data=body.encode() if body is not None else None,
                headers=request["headers"],
                method=request["method"],
            )
            try:
                with urllib.request.urlopen(req, timeout=10) as response:
                    status, reason, headers, data = (
                        response.status,
                        response.reason,
                        dict(response.headers),
                        response.read(),
                    )
            except urllib.error.HTTPError as error:
                status, reason, headers, data = (
                    error.code,
                    error.reason,
                    dict(error.headers),
                    error.read(),
                )
            return {
                "status": status,
                "statusText": reason,
                "headers": headers,
                "body": data.decode(),
            }

        return await asyncio.to_thread(go)

    def cwd(self) -> str:
        return str(self.root)


@pytest.fixture
def host(tmp_path: Path) -> _Host:
    return _Host(tmp_path)


@pytest.fixture
async def isolate(host: _Host) -> AsyncIterator[Isolate]:
    iso = await Isolate.start("sample", host, Limits(max_execution_time_s=5))
    await iso.load(MANIFEST)
    yield iso
    iso.close()


async def js(iso: Isolate, code: str) -> Any:
    """The value of the body of an async function run inside the isolate."""
    return await iso.call_tool("js", code)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status = 404 if self.path.startswith("/missing") else 200
        body = json.dumps({"path": self.path, "agent": self.headers.get("x-agent")}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Served-By", "test")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(201)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    # A short poll: shutdown() waits for the loop to look (every 0.5 s by default).
    thread = threading.Thread(target=server.serve_forever, args=(0.005,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


# --- manifest and calls -------------------------------------------------------------------


async def test_load_describes_the_manifest_as_plain_data(host: _Host) -> None:
    iso = await Isolate.start("sample", host, Limits())
    try:
        descriptor = await iso.load(MANIFEST)
    finally:
        iso.close()
    assert descriptor["name"] == "sample"
    assert descriptor["version"] == "1.2.3"
    assert [t["name"] for t in descriptor["tools"]] == ["echo", "info", "fails", "js"]
    assert descriptor["tools"][0] == {
        "name": "echo",
        "description": "Echo the query",
        "risk": "read",
        "parameters": {
            "query": {"type": "string", "description": "What", "required": True},
            "n": {"type": "number", "required": False},
        },
    }
    assert descriptor["hooks"] == ["onLoad", "onToolCall"]
    assert descriptor["commands"] == [{"name": "deploy", "description": "Deploy", "risk": "read"}]
    json.dumps(descriptor)


async def test_an_invalid_manifest_is_an_extension_error(host: _Host) -> None:
    iso = await Isolate.start("bad", host, Limits())
    try:
        with pytest.raises(ExtensionError, match="risk must be one of"):
            await iso.load(
                '({name: "x", tools: [{name: "t", description: "d", risk: "all", execute() {}}]})'
            )
        with pytest.raises(ExtensionError, match="name must be a string"):
            await iso.load("({version: '1'})")
        with pytest.raises(ExtensionError, match=r"SyntaxError|Unexpected"):
            await iso.load("({name: ")
    finally:
        iso.close()


async def test_tool_returns_its_string_or_its_object(isolate: Isolate) -> None:
    assert await isolate.call_tool("echo", '{"query": "héllo"}') == "echo:héllo"
    assert await isolate.call_tool("info", "{}") == {"a": 1, "b": ["x"]}


async def test_a_throw_is_an_extension_error_with_message_and_line(isolate: Isolate) -> None:
    with pytest.raises(ExtensionError) as caught:
        await isolate.call_tool("fails", "{}")
    assert caught.value.message == "it broke"
    assert "sample:" in caught.value.stack
    line = MANIFEST.splitlines().index('        throw new Error("it broke");') + 1
    assert f"sample:{line}:" in caught.value.stack


async def test_hooks_and_commands_run(isolate: Isolate, host: _Host) -> None:
    assert await isolate.call_hook("onToolCall", '{"toolName": "read_file"}') == "seen read_file"
    assert await isolate.call_hook("onLoad", "") is None
    assert await isolate.call_hook("onToolResult", "{}") is None
    assert ("info", "loaded", None) in host.logs
    assert await isolate.call_command("deploy", "prod") == "deployed prod"


async def test_an_unknown_tool_is_an_extension_error(isolate: Isolate) -> None:
    with pytest.raises(ExtensionError, match="no tool named nope"):
        await isolate.call_tool("nope", "{}")


# --- the rho global -------------------------------------------------------------------------


async def test_log_without_await_returns_undefined_and_reaches_the_host(
    isolate: Isolate, host: _Host
) -> None:
    result = await js(isolate, 'const r = rho.log("warn", "careful"); return typeof r;')
    assert result == "undefined"
    await js(isolate, 'rho.log("shout", "odd level"); console.error("bad", {n: 1});')
    await js(isolate, "return 1")  # later calls drain the earlier messages
    assert ("warn", "careful", None) in host.logs
    assert ("info", "odd level", None) in host.logs
    assert ("error", 'bad {"n":1}', None) in host.logs


async def test_read_file_goes_through_the_host_with_the_call_context(
    isolate: Isolate, host: _Host
) -> None:
    (host.root / "notes.txt").write_text("ünïcode", encoding="utf-8")
    text = await isolate.call_tool("js", 'return await rho.readFile("notes.txt")', context="ctx-1")
    assert text == "ünïcode"
    assert host.contexts == ["ctx-1"]


async def test_a_host_refusal_is_a_catchable_js_error(isolate: Isolate) -> None:
    code = 'try { await rho.readFile("absent"); return "no"; } catch (e) { return e instanceof Error && e.message; }'
    assert await js(isolate, code) == "no such file: absent"


async def test_write_file_and_run_command_go_through_the_host(
    isolate: Isolate, host: _Host
) -> None:
    assert await js(isolate, 'return await rho.writeFile("out.txt", "written")') is None
    assert (host.root / "out.txt").read_text(encoding="utf-8") == "written"
    result = await js(isolate, 'return await rho.runCommand("echo", ["a", "b"])')
    assert result == {"stdout": "a b\n", "stderr": "", "exitCode": 0}


async def test_get_cwd_and_get_model_follow_the_host(isolate: Isolate, host: _Host) -> None:
    assert await js(isolate, "return rho.getCwd()") == str(host.root)
    assert await js(isolate, "return rho.getModel()") == ""
    await isolate.set_model("openai/gpt-x")
    assert await js(isolate, "return rho.getModel()") == "openai/gpt-x"


async def test_concurrent_calls_keep_their_own_context(isolate: Isolate, host: _Host) -> None:
    (host.root / "a.txt").write_text("a", encoding="utf-8")
    code = 'await new Promise(r => setTimeout(r, 20)); return await rho.readFile("a.txt")'
    await asyncio.gather(*(isolate.call_tool("js", code, context=f"c{i}") for i in range(4)))
    assert sorted(host.contexts) == ["c0", "c1", "c2", "c3"]


async def test_node_and_deno_globals_are_undefined(isolate: Isolate) -> None:
    assert (
        await js(isolate, "return [typeof Deno, typeof require, typeof process]")
        == ["undefined"] * 3
    )


# --- web APIs ------------------------------------------------------------------------------


async def test_url_parts_and_resolution(isolate: Isolate) -> None:
    code = """
      const u = new URL("HTTPS://user:pw@Example.COM:443/a/./b/../c d?x=1&y=é#frag");
      const r = new URL("../up?q#h", "http://h.test:8080/one/two/three");
      const f = new URL("file:///tmp/a/../b.txt");
      return [u.href, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname,
              u.search, u.hash, u.origin, u.searchParams.get("y"), r.href, f.pathname, String(f),
              URL.canParse("nope"), new URL("//other.test/p", "https://base.test/x").href];
    """
    assert await js(isolate, code) == [
        "https://user:pw@example.com/a/c%20d?x=1&y=%C3%A9#frag",
        "https:",
        "user",
        "pw",
        "example.com",
        "example.com",
        "",
        "/a/c%20d",
        "?x=1&y=%C3%A9",
        "#frag",
        "https://example.com",
        "é",
        "http://h.test:8080/one/up?q#h",
        "/tmp/b.txt",
        "file:///tmp/b.txt",
        False,
        "https://other.test/p",
    ]


async def test_url_search_params(isolate: Isolate) -> None:
    code = """
      const p = new URLSearchParams("?a=1&b=x+y&a=2&c=%E2%9C%93");
      p.append("d", "é & =");
      p.set("b", "z");
      const u = new URL("http://h.test/p?k=v");
      u.searchParams.append("n", "two words");
      return [p.getAll("a"), p.get("b"), p.get("c"), p.has("zz"), p.toString(), u.href,
              [...new URLSearchParams({x: "1", y: "2"})]];
    """
    assert await js(isolate, code) == [
        ["1", "2"],
        "z",
        "✓",
        False,
        "a=1&b=z&a=2&c=%E2%9C%93&d=%C3%A9+%26+%3D",
        "http://h.test/p?k=v&n=two+words",
        [["x", "1"], ["y", "2"]],
    ]


async def test_text_encoder_round_trips_non_ascii(isolate: Isolate) -> None:
    code = """
      const s = "aé€😀";
      const bytes = new TextEncoder().encode(s);
      return [Array.from(bytes), new TextDecoder().decode(bytes) === s,
              new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62]))];
    """
    expected = list("aé€😀".encode())
    assert await js(isolate, code) == [expected, True, "a\ufffdb"]


async def test_set_timeout_runs_callbacks_in_due_order(isolate: Isolate) -> None:
    code = """
      const order = [];
      await new Promise((done) => {
        setTimeout(() => order.push("30"), 30);
        setTimeout(() => order.push("10"), 10);
        setTimeout(() => order.push("0a"), 0);
        setTimeout(() => order.push("0b"), 0);
        const cancelled = setTimeout(() => order.push("never"), 5);
        clearTimeout(cancelled);
        setTimeout(done, 60);
      });
      return order;
    """
    assert await js(isolate, code) == ["0a", "0b", "10", "30"]


async def test_set_interval_repeats_until_cleared(isolate: Isolate) -> None:
    code = """
      let ticks = 0;
      await new Promise((done) => {
        const id = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(id); setTimeout(done, 50); } }, 5);
      });
      return ticks;
    """
    assert await js(isolate, code) == 3


async def test_digest_matches_hashlib(isolate: Isolate) -> None:
    code = """
      const out = {};
      for (const alg of ["SHA-1", "SHA-256", "SHA-384", "SHA-512"]) {
        const buf = await crypto.subtle.digest(alg, new TextEncoder().encode("abc"));
        out[alg] = [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
      }
      return out;
    """
    assert await js(isolate, code) == {
        "SHA-1": hashlib.sha1(b"abc").hexdigest(),
        "SHA-256": hashlib.sha256(b"abc").hexdigest(),
        "SHA-384": hashlib.sha384(b"abc").hexdigest(),
        "SHA-512": hashlib.sha512(b"abc").hexdigest(),
    }


async def test_get_random_values_fills_with_fresh_bytes(isolate: Isolate) -> None:
    code = """
      const a = crypto.getRandomValues(new Uint8Array(64));
      const b = crypto.getRandomValues(new Uint32Array(16));
      let tooBig = false;
      try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { tooBig = true; }
      return [Array.from(a), Array.from(new Uint8Array(b.buffer)), crypto.randomUUID(), tooBig];
    """
    first, second, uuid, too_big = await js(isolate, code)
    assert len(first) == 64 and len(set(first)) > 20
    assert first != second
    assert uuid[14] == "4" and len(uuid) == 36
    assert too_big is True


async def test_random_values_differ_between_isolates(host: _Host) -> None:
    draws = []
    for _ in range(2):
        iso = await Isolate.start("r", host, Limits())
        try:
            await iso.load(MANIFEST)
            draws.append(
                await js(iso, "return Array.from(crypto.getRandomValues(new Uint8Array(16)))")
            )
        finally:
            iso.close()
    assert draws[0] != draws[1]


async def test_structured_clone_atob_btoa(isolate: Isolate) -> None:
    code = """
      const src = { a: [1, { b: 2 }], m: new Map([["k", 1]]) };
      src.self = src;
      const c = structuredClone(src);
      return [c !== src, c.self === c, c.a[1].b, c.m.get("k"), btoa("hello"), atob("aGVsbG8=")];
    """
    assert await js(isolate, code) == [True, True, 2, 1, "aGVsbG8=", "hello"]


async def test_fetch_against_a_local_server(isolate: Isolate, web_server: str) -> None:
    code = f"""
      const r = await fetch("{web_server}/search?q=a%20b", {{ headers: {{ "X-Agent": "ext" }} }});
      const missing = await fetch("{web_server}/missing");
      const posted = await fetch("{web_server}/echo", {{ method: "POST", body: "payload" }});
      return [r.ok, r.status, r.headers.get("x-served-by"), r.headers.has("content-type"),
              await r.json(), missing.ok, missing.status, posted.status, await posted.text(),
              [...r.headers.entries()].some(([k]) => k === "x-served-by")];
    """
    assert await js(isolate, code) == [
        True,
        200,
        "test",
        True,
        {"path": "/search?q=a%20b", "agent": "ext"},
        False,
        404,
        201,
        "payload",
        True,
    ]


# --- isolation and limits ------------------------------------------------------------------


async def test_two_isolates_do_not_share_globals(host: _Host) -> None:
    first = await Isolate.start("one", host, Limits())
    second = await Isolate.start("two", host, Limits())
    try:
        await first.load(MANIFEST)
        await second.load(MANIFEST)
        await js(first, "globalThis.shared = 41; return 1")
        assert await js(second, "return typeof globalThis.shared") == "undefined"
        assert await js(first, "return globalThis.shared + 1") == 42
    finally:
        first.close()
        second.close()


#: The call limit of the tests where it must fire (a call that never ends): the manifest still
#: loads under the default limit, which must not.
SHORT_LIMIT_S = 0.2


async def limited(name: str, host: _Host) -> Isolate:
    """An isolate with the manifest loaded, whose calls are then limited to `SHORT_LIMIT_S`."""
    iso = await Isolate.start(name, host, Limits())
    await iso.load(MANIFEST)
    iso._limits = Limits(max_execution_time_s=SHORT_LIMIT_S)
    return iso


async def test_a_runaway_loop_times_out_and_rho_goes_on(
    host: _Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A spinning isolate never answers the probe after the timeout: that wait must end too.
    monkeypatch.setattr(isolate_module, "_PROBE_S", SHORT_LIMIT_S)
    iso = await limited("spin", host)
    with pytest.raises(ExtensionTimeout):
        await js(iso, "await null; while (true) {}")
    assert iso.closed
    with pytest.raises(ExtensionError, match="not running"):
        await js(iso, "return 1")
    other = await Isolate.start("next", host, Limits())
    try:
        await other.load(MANIFEST)
        assert await js(other, "return 6 * 7") == 42
    finally:
        other.close()


async def test_a_synchronous_runaway_loop_times_out(
    host: _Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(isolate_module, "_PROBE_S", SHORT_LIMIT_S)
    iso = await limited("spin", host)
    try:
        with pytest.raises(ExtensionTimeout):
            await iso.call_tool("js", "while (true) {}")
    finally:
        iso.close()


async def test_a_never_settling_promise_times_out_and_the_isolate_stays(host: _Host) -> None:
    iso = await limited("wait", host)  # the probe keeps its own limit: it must not fire here
    try:
        with pytest.raises(ExtensionTimeout):
            await js(iso, "await new Promise(() => {})")
        assert not iso.closed
        assert await js(iso, "return 'still here'") == "still here"
    finally:
        iso.close()


async def test_a_memory_bomb_is_stopped_and_another_isolate_works(host: _Host) -> None:
    iso = await Isolate.start("bomb", host, Limits(max_memory_mb=16, max_execution_time_s=20))
    await iso.load(MANIFEST)
    with pytest.raises(ExtensionMemoryError):
        await js(
            iso,
            "const a = []; while (true) { a.push({ n: Math.random(), s: 'x' + Math.random() }); }",
        )
    assert iso.closed
    other = await Isolate.start("after", host, Limits())
    try:
        await other.load(MANIFEST)
        assert await js(other, "return [1, 2, 3].map((x) => x * 2)") == [2, 4, 6]
    finally:
        other.close()


async def test_a_memory_bomb_after_an_await_is_stopped(host: _Host) -> None:
    iso = await Isolate.start("bomb", host, Limits(max_memory_mb=16, max_execution_time_s=20))
    try:
        await iso.load(MANIFEST)
        with pytest.raises(ExtensionMemoryError):
            await js(
                iso,
                "await null; const a = []; while (true) { a.push([Math.random(), Math.random()]); }",
            )
    finally:
        iso.close()
