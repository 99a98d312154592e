"""An extension's error shows its own frames only, at the source's lines and columns."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rho_ext_js.building import build
from rho_ext_js.discovery import discover
from rho_ext_js.host import ExtensionError, HostApi, HostError, Limits
from rho_ext_js.isolate import Isolate
from rho_ext_js.stacks import MAX_FRAMES, error_text, own_frames, syntax_error_place

LIB = """interface Options { strict: boolean }
export async function readIt(path: string): Promise<string> {
  return await rho.readFile(path);
}
export function explode(): never { throw new TypeError("exploded"); }
"""

MOD = """import { explode, readIt } from "./lib";
type Args = { path: string };
export default {
  name: "errs",
  tools: [
    { name: "read_it", description: "d", risk: "read" as const,
      async execute(args: string) { const a: Args = JSON.parse(args); return await readIt(a.path); } },
    { name: "explode", description: "d", risk: "read" as const, execute() { return explode(); } },
    { name: "bad_url", description: "d", risk: "read" as const, execute() { return new URL("nope").href; } },
    { name: "later", description: "d", risk: "read" as const,
      async execute() { await new Promise((r) => setTimeout(r, 1)); return (null as any).x; } },
  ],
};
"""


class _Refusing(HostApi):
    async def log(self, level: str, message: str, context: object) -> None:
        return None

    async def read_file(self, path: str, context: object) -> str:
        raise HostError(f"no such file: {path}")

    async def write_file(self, path: str, content: str, context: object) -> None:
        raise HostError("no")

    async def run_command(self, cmd: str, args: list[str], context: object) -> dict[str, object]:
        raise HostError("no")

    async def fetch(self, request: dict[str, object], context: object) -> dict[str, object]:
        raise HostError("no")

    def cwd(self) -> str:
        return "/"


def _errors(tmp_path: Path, tools: list[str]) -> list[str]:
    folder = tmp_path / "home/.rho/extensions/errs"
    folder.mkdir(parents=True)
    (folder / "lib.ts").write_text(LIB)
    (folder / "mod.ts").write_text(MOD)
    source = discover(tmp_path / "project", tmp_path / "home")["errs"]
    built = build(source, tmp_path / "project", tmp_path / "home")

    async def run() -> list[str]:
        isolate = await Isolate.start("errs", _Refusing(), Limits(max_execution_time_s=60))
        try:
            await isolate.load(built.script)
            texts = []
            for tool in tools:
                with pytest.raises(ExtensionError) as caught:
                    await isolate.call_tool(tool, '{"path": "gone.txt"}')
                texts.append(error_text(caught.value, built.modules))
            return texts
        finally:
            isolate.close()

    return asyncio.run(run())


def test_a_host_refusal_points_at_the_extensions_own_lines(tmp_path: Path) -> None:
    (text,) = _errors(tmp_path, ["read_it"])
    assert text == (
        "no such file: gone.txt (at readIt (errs/lib.ts:3:20); "
        "at Object.execute (errs/mod.ts:7:84))"
    )


def test_errors_show_no_frame_of_rho_and_keep_the_source_columns(tmp_path: Path) -> None:
    explode, bad_url, later = _errors(tmp_path, ["explode", "bad_url", "later"])
    assert explode == (
        "exploded (at explode (errs/lib.ts:5:42); at Object.execute (errs/mod.ts:8:84))"
    )
    assert bad_url == "Invalid URL: nope (at Object.execute (errs/mod.ts:9:84))"
    assert (
        later.startswith("Cannot read properties of null")
        and "(at Object.execute (errs/mod.ts:11:" in later
    )
    for text in (explode, bad_url, later):
        assert "<anonymous>" not in text and "settle" not in text and "invoke" not in text


def test_own_frames_keep_module_frames_only_and_fix_first_line_columns() -> None:
    stack = "\n".join(
        [
            "Error: x",
            "    at callerFrames (<anonymous>:92:30)",
            "    at Object.readFile (<anonymous>:162:14)",
            "    at helper (ext/lib.ts:1:50)",
            "    at eval (ext/mod.ts:4:7)",
            "    at async Object.execute (ext/mod.ts:9:3)",
            "    at eval (eval at execute (ext/mod.ts:9:3), <anonymous>:1:8)",
            "    at __rho_run (ext:11:18)",
            "    at <anonymous>:1:28",
        ]
    )
    assert own_frames(stack, {"ext/lib.ts": 40, "ext/mod.ts": 40}) == [
        "at helper (ext/lib.ts:1:10)",
        "at ext/mod.ts:4:7",
        "at async Object.execute (ext/mod.ts:9:3)",
    ]
    deep = "Error: x\n" + "\n".join(f"    at f{i} (ext/mod.ts:{i + 2}:1)" for i in range(20))
    assert len(own_frames(deep, {"ext/mod.ts": 0})) == MAX_FRAMES
    assert (
        error_text(ExtensionError("plain", "Error: plain\n    at <anonymous>:1:1"), {}) == "plain"
    )


class _Logging(_Refusing):
    def __init__(self) -> None:
        self.logs: list[str] = []
        self.two = asyncio.Event()

    async def log(self, level: str, message: str, context: object) -> None:
        self.logs.append(message)
        if len(self.logs) >= 2:
            self.two.set()


def test_an_error_logged_through_console_shows_the_extensions_frames_only(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "home/.rho/extensions/noisy"
    folder.mkdir(parents=True)
    (folder / "mod.ts").write_text(
        'export default { name: "noisy", tools: [{ name: "log", description: "d",\n'
        '  risk: "read" as const, async execute() {\n'
        '    console.error("oops", new Error("shown"));\n'
        '    try { await rho.readFile("x"); } catch (e) { console.warn(e); }\n'
        '    return "ok"; } }] };\n'
    )
    source = discover(tmp_path / "project", tmp_path / "home")["noisy"]
    built = build(source, tmp_path / "project", tmp_path / "home")
    host = _Logging()

    async def run() -> None:
        isolate = await Isolate.start("noisy", host, Limits(max_execution_time_s=60))
        try:
            await isolate.load(built.script)
            assert await isolate.call_tool("log", "{}") == "ok"
            await asyncio.wait_for(host.two.wait(), 60)  # a safety net only
        finally:
            isolate.close()

    asyncio.run(run())
    assert host.logs == [
        "oops Error: shown\n    at Object.execute (noisy/mod.ts:3:27)",
        "Error: no such file: x\n    at Object.execute (noisy/mod.ts:4:21)",
    ]


def test_the_place_of_a_syntax_error_is_found_without_running_the_module() -> None:
    codes = {
        "ext/a.ts": "(function () { while (true) {} })\n//# sourceURL=ext/a.ts",
        "ext/b.ts": "(function () { const a = 1;\n\nconst a = 2; })\n//# sourceURL=ext/b.ts",
    }
    assert asyncio.run(syntax_error_place(codes)) == "ext/b.ts:3"
    assert asyncio.run(syntax_error_place({"ext/a.ts": codes["ext/a.ts"]})) is None
