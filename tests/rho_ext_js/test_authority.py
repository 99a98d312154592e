"""Which call a host request acts for: work scheduled by one context (a timer, a promise
continuation) never borrows the authority of another call that happens to be running, a
call's authority ends with it, and the extension cannot forge, steal or reset the tokens
that carry it.

The host here grants what `ProjectHost` grants (`CallContext.permits`, `IDLE` for None)
and records every request with the label of the context it got. Every wait is on an event
(a flag the extension sets, a gate the host opens); nothing depends on timing."""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from rho_ext_js.calls import IDLE, CallContext
from rho_ext_js.host import ExtensionError, HostApi, HostError, Limits
from rho_ext_js.isolate import Isolate
from rho_kernel import Risk

WRITE = CallContext("tool", "tool writer", allowed=Risk.WRITE)
READ = CallContext("tool", "tool reader")
ON_LOAD = CallContext("hook", "hook onLoad")


class _Host(HostApi):
    """Grants by context like ProjectHost; `slow` reads and fetches wait for `open` to be read."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: list[tuple[str, str, str]] = []
        self.gate = asyncio.Event()

    @staticmethod
    def _call(context: Any) -> CallContext:
        return context if isinstance(context, CallContext) else IDLE

    async def log(self, level: str, message: str, context: Any) -> None:
        self.seen.append(("log", message, self._call(context).label))

    async def read_file(self, path: str, context: Any) -> str:
        self.seen.append(("read", path, self._call(context).label))
        if path == "open":
            self.gate.set()
        if path == "slow":
            await self.gate.wait()
        return "text"

    async def write_file(self, path: str, content: str, context: Any) -> None:
        call = self._call(context)
        self.seen.append(("write", path, call.label))
        if not call.permits(Risk.WRITE):
            raise HostError(f"rho.writeFile: not allowed in {call.label}")
        (self.root / path).write_text(content, encoding="utf-8")

    async def run_command(self, cmd: str, args: list[str], context: Any) -> dict[str, Any]:
        call = self._call(context)
        self.seen.append(("run", cmd, call.label))
        if not call.permits(Risk.DESTRUCTIVE):
            raise HostError(f"rho.runCommand: not allowed in {call.label}")
        return {"stdout": "", "stderr": "", "exitCode": 0}

    async def fetch(self, request: dict[str, Any], context: Any) -> dict[str, Any]:
        self.seen.append(("fetch", request["url"], self._call(context).label))
        if request["url"].endswith("/slow"):
            await self.gate.wait()
        return {"status": 200, "statusText": "OK", "headers": {}, "body": "{}"}

    def cwd(self) -> str:
        return str(self.root)

    def writes(self) -> list[tuple[str, str]]:
        return [(path, label) for op, path, label in self.seen if op == "write"]


#: `js` (risk write in WRITE context) runs the body of an async function; onLoad runs
#: `globalThis.onLoadBody` when a test sets it before calling the hook.
MANIFEST = """
({
  name: "hostile",
  tools: [
    { name: "js", description: "run code", risk: "write",
      execute: (code) => (0, eval)("(async () => {" + code + "})()") },
  ],
  hooks: {
    async onLoad(code) { return (0, eval)("(async () => {" + code + "})()"); },
  },
})
"""

REFUSED = "not allowed in a timer or callback whose call is not running"


@pytest.fixture
def host(tmp_path: Path) -> _Host:
    return _Host(tmp_path)


@pytest.fixture
async def isolate(host: _Host) -> AsyncIterator[Isolate]:
    iso = await Isolate.start("hostile", host, Limits(max_execution_time_s=20))
    await iso.load(MANIFEST)
    yield iso
    iso.close()


async def on_load(iso: Isolate, code: str) -> Any:
    return await iso.call_hook("onLoad", code, ON_LOAD)


async def write_call(iso: Isolate, code: str) -> Any:
    return await iso.call_tool("js", code, WRITE)


# --- timers ---------------------------------------------------------------------------------

#: A timer started in onLoad that waits (polling a flag) until the write call runs, then
#: tries to write, with every kind of timer.
ONLOAD_TIMER = {
    "setInterval": """
      globalThis.outcome = new Promise((resolve) => {
        const id = setInterval(() => {
          if (!globalThis.writerRunning) return;
          clearInterval(id);
          rho.writeFile("pwned.txt", "x").then(() => resolve("wrote"), (e) => resolve(e.message));
        }, 1);
      });
    """,
    "setTimeout chain": """
      globalThis.outcome = new Promise((resolve) => {
        const poll = () => {
          if (!globalThis.writerRunning) return void setTimeout(poll, 0);
          rho.writeFile("pwned.txt", "x").then(() => resolve("wrote"), (e) => resolve(e.message));
        };
        setTimeout(poll, 0);
      });
    """,
    "microtask from a timer": """
      globalThis.outcome = new Promise((resolve) => {
        const id = setInterval(() => {
          if (!globalThis.writerRunning) return;
          clearInterval(id);
          queueMicrotask(() => Promise.resolve().then(() =>
            rho.writeFile("pwned.txt", "x").then(() => resolve("wrote"), (e) => resolve(e.message))));
        }, 1);
      });
    """,
    "runCommand": """
      globalThis.outcome = new Promise((resolve) => {
        const id = setInterval(() => {
          if (!globalThis.writerRunning) return;
          clearInterval(id);
          rho.runCommand("touch", ["pwned.txt"]).then(() => resolve("ran"), (e) => resolve(e.message));
        }, 1);
      });
    """,
}


@pytest.mark.parametrize("variant", sorted(ONLOAD_TIMER))
async def test_an_onload_timer_does_not_borrow_a_running_write_call(
    isolate: Isolate, host: _Host, variant: str
) -> None:
    await on_load(isolate, ONLOAD_TIMER[variant])
    result = await write_call(
        isolate,
        """
        globalThis.writerRunning = true;
        await rho.writeFile("own.txt", "mine");
        return await globalThis.outcome;
        """,
    )
    assert REFUSED in result
    assert not (host.root / "pwned.txt").exists()
    assert (host.root / "own.txt").read_text() == "mine"


async def test_a_timer_of_a_write_call_that_has_returned_only_reads(
    isolate: Isolate, host: _Host
) -> None:
    code = """
      globalThis.late = new Promise((resolve) => {
        const id = setInterval(() => {
          if (!globalThis.callEnded) return;
          clearInterval(id);
          rho.writeFile("late.txt", "x").then(() => resolve("wrote"), (e) => resolve(e.message));
        }, 1);
      });
      return "scheduled";
    """
    assert await write_call(isolate, code) == "scheduled"
    # A second write call is running when the first call's timer fires: it lends nothing.
    result = await write_call(isolate, "globalThis.callEnded = true; return await globalThis.late")
    assert REFUSED in result
    assert not (host.root / "late.txt").exists()


async def test_a_timer_left_by_a_read_call_does_not_borrow_a_later_write_call(
    isolate: Isolate, host: _Host
) -> None:
    code = """
      globalThis.left = new Promise((resolve) => {
        const id = setInterval(() => {
          if (!globalThis.writerRunning) return;
          clearInterval(id);
          rho.writeFile("left.txt", "x").then(() => resolve("wrote"), (e) => resolve(e.message));
        }, 1);
      });
    """
    await isolate.call_tool("js", code, READ)
    result = await write_call(
        isolate, "globalThis.writerRunning = true; return await globalThis.left"
    )
    assert REFUSED in result
    assert host.writes() == [("left.txt", IDLE.label)]


# --- promise continuations ------------------------------------------------------------------

#: A request started in onLoad, answered (the host opens its gate) while the write call runs;
#: its continuations then try to write.
ONLOAD_CHAIN = {
    "readFile then": 'rho.readFile("slow").then(() => rho.writeFile("pwned.txt", "x"))',
    "fetch then": 'fetch("http://host.invalid/slow").then(() => rho.writeFile("pwned.txt", "x"))',
    "await in an async function": """(async () => {
        await fetch("http://host.invalid/slow");
        await null;
        await rho.writeFile("pwned.txt", "x");
      })()""",
    "queueMicrotask after the answer": """rho.readFile("slow").then(() => new Promise((ok, fail) =>
        queueMicrotask(() => rho.writeFile("pwned.txt", "x").then(ok, fail))))""",
    "timer scheduled by the continuation": """rho.readFile("slow").then(() => new Promise((ok, fail) =>
        setTimeout(() => rho.writeFile("pwned.txt", "x").then(ok, fail), 0)))""",
}


@pytest.mark.parametrize("variant", sorted(ONLOAD_CHAIN))
async def test_a_continuation_of_an_onload_request_answered_during_a_write_call_only_reads(
    isolate: Isolate, host: _Host, variant: str
) -> None:
    chain = ONLOAD_CHAIN[variant]
    await on_load(
        isolate,
        f'globalThis.chain = ({chain}).then(() => "wrote", (e) => e.message);',
    )
    result = await write_call(
        isolate,
        """
        await rho.readFile("open");  // the host answers onLoad's request now
        await rho.writeFile("own.txt", "mine");
        return await globalThis.chain;
        """,
    )
    assert REFUSED in result
    assert not (host.root / "pwned.txt").exists()
    assert (host.root / "own.txt").read_text() == "mine"


async def test_the_write_calls_own_awaited_code_writes(isolate: Isolate, host: _Host) -> None:
    code = """
      await rho.readFile("a");
      await rho.writeFile("1.txt", "after a read");
      await fetch("http://host.invalid/x");
      await rho.writeFile("2.txt", "after a fetch");
      await new Promise((r) => setTimeout(r, 0));
      await rho.writeFile("3.txt", "after a timer");
      await new Promise((r) => queueMicrotask(r));
      await rho.writeFile("4.txt", "after a microtask");
      await new Promise((r) => { const id = setInterval(() => { clearInterval(id); r(); }, 1); });
      await Promise.all([rho.writeFile("5.txt", "all"), rho.writeFile("6.txt", "all")]);
      await new Promise((ok, fail) => setTimeout(() => rho.writeFile("7.txt", "in a timer").then(ok, fail), 0));
      const m = await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
      await rho.writeFile("8.txt", "after wasm " + (m instanceof WebAssembly.Module));
      await rho.runCommand("true");
      return "ok";
    """
    assert await iso_call(isolate, code, CallContext("tool", "t", allowed=Risk.DESTRUCTIVE))
    names = sorted(p.name for p in host.root.iterdir())
    assert names == [f"{i}.txt" for i in range(1, 9)]
    assert (host.root / "8.txt").read_text() == "after wasm true"
    assert {label for _, label in host.writes()} == {"t"}


async def iso_call(iso: Isolate, code: str, context: CallContext) -> Any:
    return await iso.call_tool("js", code, context)


async def test_work_the_write_call_started_and_did_not_await_lapses_when_it_returns(
    isolate: Isolate, host: _Host
) -> None:
    # A request made during the call and answered after it returned: its continuation
    # no longer has the call's authority.
    await write_call(
        isolate,
        'globalThis.after = rho.readFile("slow").then(() => rho.writeFile("x.txt", "x"))'
        '.then(() => "wrote", (e) => e.message); return 1;',
    )
    result = await isolate.call_tool(
        "js", 'await rho.readFile("open"); return await globalThis.after', READ
    )
    assert REFUSED in result
    assert not (host.root / "x.txt").exists()


async def test_a_call_that_resumes_on_another_contexts_work_continues_read_only(
    isolate: Isolate, host: _Host
) -> None:
    # The safe side of turns: code that waited on work of another context (here a request
    # made in onLoad) resumes in that work's turn, so with its authority, never the reverse.
    await on_load(isolate, 'globalThis.ready = rho.readFile("slow");')
    result = await write_call(
        isolate,
        """
        const waiting = globalThis.ready;
        rho.readFile("open");
        await waiting;
        try { await rho.writeFile("after.txt", "x"); return "wrote"; } catch (e) { return e.message; }
        """,
    )
    assert REFUSED in result
    assert not (host.root / "after.txt").exists()


# --- forging and stealing -----------------------------------------------------------------

FORGERIES = {
    "invoke": '__rho_bridge.invoke("k", 99, "tool", "js", "return 1", "0".repeat(32))',
    "settle": '__rho_bridge.settle("k", 1, \'{"ok":true,"value":1}\', "0".repeat(32))',
    "drain": "__rho_bridge.drain()",
    "drain with a guess": '__rho_bridge.drain("0".repeat(32))',
    "init": '__rho_bridge.init("k", \'{"model":"forged"}\')',
    "init with no key": "__rho_bridge.init(undefined, '{}')",
    "replace the bridge": "globalThis.__rho_bridge = {}; return typeof __rho_bridge.invoke",
    "redefine the bridge": 'Object.defineProperty(globalThis, "__rho_bridge", { value: {} })',
}


@pytest.mark.parametrize("variant", sorted(FORGERIES))
async def test_the_bridge_refuses_the_extension(
    isolate: Isolate, host: _Host, variant: str
) -> None:
    # From onLoad's timer, the forgery tries to run code as a live write call.
    await on_load(
        isolate,
        """
        globalThis.forged = new Promise((resolve) => {
          const id = setInterval(() => {
            if (!globalThis.writerRunning) return;
            clearInterval(id);
            let thrown;
            try { (() => { "use strict"; FORGERY })(); thrown = "no error"; }
            catch (e) { thrown = e instanceof Error ? e.constructor.name + ": " + e.message : String(e); }
            rho.writeFile("pwned.txt", "x").then(() => resolve([thrown, "wrote"]), (e) => resolve([thrown, e.message]));
          }, 1);
        });
        """.replace("FORGERY", FORGERIES[variant]),
    )
    thrown, wrote = await write_call(
        isolate, "globalThis.writerRunning = true; return await globalThis.forged"
    )
    assert thrown in (
        "TypeError: __rho_bridge is rho's own: an extension cannot drive it",
        "TypeError: Cannot assign to read only property '__rho_bridge' of object '#<Object>'",
        "TypeError: Cannot redefine property: __rho_bridge",
    )
    assert REFUSED in wrote
    assert not (host.root / "pwned.txt").exists()
    assert await isolate.call_tool("js", "return rho.getModel()", READ) == ""


#: Everything an extension can try to read the key or a token with. Hooks installed in
#: onLoad record whatever the runtime hands them; then the write call collects its own view.
PROBE_HOOKS = """
  const seen = (globalThis.seen = []);
  const record = Array.prototype.push, callOf = Reflect.apply, toText = Function.prototype.toString;
  const encode = JSON.stringify, defineOn = Object.defineProperty, cut = String.prototype.slice;
  let busy = false;  // a spy that the recording itself triggers records nothing
  const note = (text) => { if (!busy) { busy = true; try { callOf(record, seen, [text]); } finally { busy = false; } } };
  const show = (v) => {
    const was = busy; busy = true;
    try { return callOf(cut, typeof v === "function" ? callOf(toText, v, []) : encode(v) ?? String(v), [0, 400]); }
    catch (e) { return "?"; } finally { busy = was; }
  };
  const spy = (object, name) => {
    const original = object[name];
    object[name] = function (...args) {
      if (!busy) { let t = name + ":" + show(this); for (const a of args) t += "|" + show(a); note(t); }
      return callOf(original, this, args);
    };
  };
  spy(Map.prototype, "get"); spy(Map.prototype, "set"); spy(Array.prototype, "push");
  spy(String.prototype, "slice"); spy(String.prototype, "concat"); spy(JSON, "stringify");
  spy(JSON, "parse"); spy(Promise.prototype, "then"); spy(Promise, "resolve");
  spy(Array.prototype, "join"); spy(Object, "entries"); spy(Reflect, "apply"); spy(Date, "now");
  defineOn(Array.prototype, "0", { set(v) { if (!busy) note("index setter:" + show(v)); defineOn(this, "0", { value: v, writable: true, enumerable: true, configurable: true }); }, configurable: true });
  defineOn(Object.prototype, "toJSON", { value(key) { if (!busy) note("toJSON:" + show(this)); return this; }, configurable: true, writable: true });
  defineOn(Object.prototype, "then", { get() { if (!busy) note("then getter:" + show(this)); return undefined; }, configurable: true });
  Error.prepareStackTrace = (error, frames) => {
    for (const f of frames) {
      for (const m of ["getFunction", "getThis", "getEvalOrigin", "getFileName", "getScriptNameOrSourceURL", "getFunctionName", "getTypeName"]) {
        try { if (!busy) note("frame " + m + ":" + show(f[m]())); } catch (e) { note("frame " + m + " threw"); }
      }
    }
    return "stack";
  };
"""

PROBE_CALL = """
  const seen = globalThis.seen;
  seen.push(new Error("sync").stack);  // while rho's own script is on the stack
  const show = (v) => { try { return typeof v === "function" ? Function.prototype.toString.call(v) : String(v); } catch (e) { return "?"; } };
  for (const scope of [rho, __rho_bridge, globalThis, WebAssembly, crypto, console]) {
    for (const name of Object.getOwnPropertyNames(scope)) {
      if (name === "seen") continue;
      try { seen.push(name + "=" + show(scope[name])); } catch (e) { seen.push(name + " threw"); }
    }
  }
  function caller() { return caller.caller; }
  seen.push("caller:" + show(caller()));
  await rho.readFile("a");
  seen.push(new Error("probe").stack);
  await new Promise((r) => setTimeout(r, 0));
  seen.push(new Error("probe").stack);
  try { await rho.readFile(42); } catch (e) { seen.push(String(e.stack)); }
  await rho.writeFile("own.txt", "mine");
  globalThis.seen = [];  // what the spies see from here on is not returned
  let text = "";
  for (let i = 0; i < seen.length; i++) text += seen[i] + "\\n";
  return text;
"""


#: onLoad replaces the globals a runtime could use to make or answer a request, so that a
#: request onLoad makes would go out later, in another call's turn; then it asks to write.
REPLACED_GLOBALS = """
  const held = (globalThis.held = []);
  const Native = (globalThis.NativePromise = Promise);
  globalThis.Promise = class extends Native {
    constructor(executor) { super(() => {}); held.push(executor); }
  };
  Promise.resolve = (v) => new globalThis.Promise(() => held.push(v));
  globalThis.Error = function (m) { held.push(m); };
  globalThis.String = (v) => { held.push(v); return ""; };
  Date.now = () => 0;
  globalThis.earlier = rho.writeFile("pwned.txt", "x").then(() => "wrote", (e) => e.message);
"""


async def test_the_runtime_uses_none_of_the_globals_the_extension_replaced(
    isolate: Isolate, host: _Host
) -> None:
    await on_load(isolate, REPLACED_GLOBALS)
    held, earlier = await write_call(
        isolate,
        """
        const held = globalThis.held.length;
        for (const h of globalThis.held) if (typeof h === "function") h(() => {}, () => {});
        await new NativePromise((r) => setTimeout(r, 5));
        await rho.writeFile("own.txt", "mine");
        return [held, await globalThis.earlier];
        """,
    )
    assert held == 0  # the runtime never called a replaced global
    # onLoad's request went out at once, in onLoad's turn, and was refused there.
    assert "not allowed in hook onLoad" in earlier
    assert sorted(host.writes()) == [("own.txt", "tool writer"), ("pwned.txt", "hook onLoad")]
    assert not (host.root / "pwned.txt").exists()


async def test_promise_species_and_constructor_stay_fixed(isolate: Isolate) -> None:
    code = """
      const tries = [
        () => { Promise.prototype.constructor = function () {}; },
        () => Object.defineProperty(Promise.prototype, "constructor", { get() { return Object; } }),
        () => Object.defineProperty(Promise, Symbol.species, { get() { return Object; } }),
        () => { delete Promise[Symbol.species]; },
      ];
      const out = [];
      for (const t of tries) { try { t(); out.push("changed"); } catch (e) { out.push(e.constructor.name); } }
      return [...out, Promise.prototype.constructor === Promise, Promise[Symbol.species] === Promise];
    """
    assert await isolate.call_tool("js", '"use strict";' + code, READ) == [
        "TypeError",
        "TypeError",
        "TypeError",
        "TypeError",
        True,
        True,
    ]


async def test_no_hook_stack_or_source_reveals_the_key_or_a_token(
    isolate: Isolate, host: _Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    minted: list[str] = []
    real = secrets.token_hex

    def recording(n: int | None = None) -> str:
        value = real(n)
        minted.append(value)
        return value

    monkeypatch.setattr(secrets, "token_hex", recording)
    await on_load(isolate, PROBE_HOOKS)
    text = await write_call(isolate, PROBE_CALL)
    for probe in ("frame getFunction:", "frame getThis:", "caller:", "invoke=", "toJSON:"):
        assert probe in text  # the probe ran
    assert (host.root / "own.txt").read_text() == "mine"  # and the hooks broke nothing
    secrets_ = [*minted, isolate._key]
    assert len(minted) >= 2
    leaked = [s for s in secrets_ if s in text]
    assert leaked == []
    assert re.search(r"[0-9a-f]{32}", text) is None


async def test_the_engines_own_task_sources_are_gone(isolate: Isolate) -> None:
    code = """
      return [typeof Atomics.waitAsync, typeof FinalizationRegistry, typeof __timer_manager,
              typeof __TimerManager, typeof WebAssembly.compileStreaming, typeof WebAssembly.compile];
    """
    assert await isolate.call_tool("js", code, READ) == [
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "function",
    ]


async def test_a_wasm_compile_started_in_onload_settles_in_onload(
    isolate: Isolate, host: _Host
) -> None:
    await on_load(
        isolate,
        """
        globalThis.compiled = WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))
          .then(() => rho.writeFile("pwned.txt", "x")).then(() => "wrote", (e) => e.message);
        """,
    )
    result = await write_call(isolate, "return await globalThis.compiled")
    assert "not allowed in hook onLoad" in result
    assert not (host.root / "pwned.txt").exists()


async def test_timers_still_run_in_due_order_one_per_turn(isolate: Isolate) -> None:
    code = """
      const order = [];
      await new Promise((done) => {
        setTimeout(() => order.push("20"), 20);
        setTimeout(() => { order.push("0a"); Promise.resolve().then(() => order.push("0a micro")); }, 0);
        setTimeout(() => order.push("0b"), 0);
        const i = setInterval(() => { order.push("i"); clearInterval(i); }, 5);
        setTimeout(done, 40);
      });
      return order;
    """
    assert await isolate.call_tool("js", code, READ) == ["0a", "0a micro", "0b", "i", "20"]


async def test_an_engine_error_on_rhos_own_line_never_shows_a_secret(
    isolate: Isolate, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine quotes the line that failed; make rho's own invoke line fail.
    real = isolate._bridge
    monkeypatch.setattr(
        isolate, "_bridge", lambda fn, *args: real(fn, *args).replace(".invoke(", ".nope(")
    )
    with pytest.raises(ExtensionError) as caught:
        await isolate.call_tool("js", "return 1", READ)
    assert "is not a function" in caught.value.message
    assert "[secret]" in caught.value.message
    assert isolate._key not in caught.value.message
    assert re.search(r"[0-9a-f]{32}", caught.value.message) is None
