"""bundle: an extension's ES modules become one script V8 evaluates to the manifest."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from py_mini_racer import MiniRacer

from rho_ext_js.modules import MAX_DEPTH, MAX_MODULE_BYTES, MAX_MODULES, Bundle, ModuleError, bundle


@pytest.fixture
def ctx() -> Iterator[MiniRacer]:
    """A real V8 context."""
    context = MiniRacer()
    yield context
    context.close()


def write(root: Path, files: dict[str, str]) -> None:
    """Create `files` (relative path -> text) under `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def load(ctx: MiniRacer, result: Bundle) -> dict[str, object]:
    """Evaluate the bundle; the manifest as JSON data (functions dropped)."""
    ctx.eval(f"globalThis.manifest = {result.script};")
    return json.loads(str(ctx.eval("JSON.stringify(manifest)")))


def settle(ctx: MiniRacer, expression: str) -> object:
    """The resolved value of a promise-returning `expression`."""
    ctx.eval(f"globalThis.out = undefined; ({expression}).then((v) => {{ globalThis.out = v; }})")
    return ctx.eval("globalThis.out")


MULTI_FILE = {
    "mod.ts": """\
/// <reference path="../types/rho.d.ts" />
import { search, type Hit } from "./parser";
import cache, { Cache } from "./cache.js";
import * as text from "./lib/text";
import "./lib/setup";
import { VERSION as version, helpers } from "./lib";

const index: Hit[] = [];

export default {
  name: "rust-docs",
  version,
  tools: [{
    name: "rust_docs",
    description: "Search the Rust docs",
    risk: "read" as const,
    parameters: {
      query: { type: "string", description: "Search query", required: true },
    },
    async execute(args: string): Promise<string> {
      const { query } = JSON.parse(args) as { query: string };
      const hits = search(text.normalize(query));
      cache.put(query, hits.length);
      return JSON.stringify({ hits, cached: cache.size(), isCache: cache instanceof Cache });
    },
  }],
  commands: [{
    name: "order",
    description: "Module order",
    async handler(args: string) {
      return (globalThis as any).order.join(",") + ";" + helpers.shout(args) + ";" + index.length;
    },
  }],
};
""",
    "parser.ts": """\
import { normalize, words as split } from "./lib/text.ts";
import { log } from "./lib/setup.js";

export interface Hit { title: string; score: number }

log("parser");

export function search(query: string): Hit[] {
  return split(normalize(query)).map((w, i): Hit => ({ title: w, score: i }));
}
export function fail(): never {
  throw new Error("parser failed");
}
""",
    "cache.ts": """\
import { log } from "./lib/setup";
log("cache");
export class Cache<V> {
  private entries = new Map<string, V>();
  put(key: string, value: V): void { this.entries.set(key, value); }
  size(): number { return this.entries.size; }
}
export default new Cache<number>();
""",
    "lib/text.ts": """\
import { log } from "./setup";
log("text");
export const normalize = (s: string): string => s.trim().toLowerCase();
export let words = (s: string): string[] => s.split(/\\s+/);
""",
    "lib/setup.js": """\
const order = (globalThis.order = globalThis.order || []);
export function log(name) {
  order.push(name);
}
log("setup");
""",
    "lib/mod.ts": """\
export * from "./consts";
export * as helpers from "./helpers";
""",
    "lib/consts.ts": 'export const VERSION = "2.1.0";\nexport default "ignored by export *";\n',
    "lib/helpers.js": "export const shout = (s) => s.toUpperCase() + '!';\n",
}


def test_a_multi_file_extension_runs_each_module_once_in_dependency_order(
    tmp_path: Path, ctx: MiniRacer
) -> None:
    write(tmp_path, MULTI_FILE)
    result = bundle(tmp_path / "mod.ts", tmp_path, label="rust-docs")
    manifest = load(ctx, result)
    assert manifest["name"] == "rust-docs"
    assert manifest["version"] == "2.1.0"
    assert manifest["tools"][0]["risk"] == "read"  # type: ignore[index]
    hits = json.loads(str(settle(ctx, 'manifest.tools[0].execute(\'{"query": " Vec  Push "}\')')))
    assert hits == {
        "hits": [{"title": "vec", "score": 0}, {"title": "push", "score": 1}],
        "cached": 1,
        "isCache": True,
    }
    assert settle(ctx, 'manifest.commands[0].handler("go")') == "setup,text,parser,cache;GO!;0"
    assert result.modules[-1] == tmp_path / "mod.ts"
    assert set(result.modules) == {tmp_path / name for name in MULTI_FILE}


def test_module_code_is_strict_and_scoped_to_its_module(tmp_path: Path, ctx: MiniRacer) -> None:
    write(
        tmp_path,
        {
            "mod.js": 'import { secret } from "./a.js";\nconst local = 1;\nexport default { secret, local, top: typeof this };\n',
            "a.js": "const local = 2;\nexport const secret = local;\nexport function sloppy() { undeclared = 1; }\n",
        },
    )
    manifest = load(ctx, bundle(tmp_path / "mod.js", tmp_path))
    assert manifest == {"secret": 2, "local": 1, "top": "undefined"}
    assert ctx.eval("typeof local") == "undefined"
    assert ctx.eval("typeof secret") == "undefined"


def test_a_runtime_error_names_the_module_file_and_line(tmp_path: Path, ctx: MiniRacer) -> None:
    write(tmp_path, MULTI_FILE)
    files = dict(MULTI_FILE)
    files["mod.ts"] = files["mod.ts"].replace(
        'import "./lib/setup";', 'import { fail } from "./parser";'
    )
    files["mod.ts"] = files["mod.ts"].replace(
        "const index: Hit[] = [];", "const index: Hit[] = []; fail();"
    )
    write(tmp_path, files)
    result = bundle(tmp_path / "mod.ts", tmp_path, label="rust-docs")
    with pytest.raises(Exception) as caught:
        load(ctx, result)
    message = str(caught.value)
    assert "parser failed" in message
    assert "at fail (rust-docs/parser.ts:12:9)" in message
    assert "rust-docs/mod.ts:8:" in message


def test_a_syntax_error_in_a_helper_names_the_helper(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "mod.ts": 'import x from "./h";\nexport default x;\n',
            "h.ts": "export default 1;\nlet = ;\n",
        },
    )
    with pytest.raises(ModuleError) as caught:
        bundle(tmp_path / "mod.ts", tmp_path)
    assert (caught.value.path, caught.value.line) == ("h.ts", 2)
    assert str(caught.value).startswith("h.ts:2:")


def test_a_typescript_error_in_a_helper_names_the_helper_line_and_column(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"mod.ts": 'import "./lib/h";\nexport default {};\n', "lib/h.ts": "\n  namespace N {}\n"},
    )
    with pytest.raises(ModuleError) as caught:
        bundle(tmp_path / "mod.ts", tmp_path, label="ext")
    assert str(caught.value).startswith("ext/lib/h.ts:2:3: namespaces")


def test_a_js_module_is_not_stripped_as_typescript(tmp_path: Path, ctx: MiniRacer) -> None:
    # As TypeScript, `a < b > (0)` is a generic call; as JavaScript two comparisons.
    write(tmp_path, {"mod.js": "const a = 1, b = 2;\nexport default { v: a < b > (0) };\n"})
    assert load(ctx, bundle(tmp_path / "mod.js", tmp_path)) == {"v": True}


def test_resolution_tries_ts_then_js_then_folder_modules(tmp_path: Path, ctx: MiniRacer) -> None:
    write(
        tmp_path,
        {
            "mod.ts": 'import a from "./a";\nimport b from "./b";\nimport c from "./c";\n'
            'import d from "./d.js";\nexport default [a, b, c, d];\n',
            "a.ts": 'export default "a.ts";',
            "a.js": 'export default "a.js";',
            "b.js": 'export default "b.js";',
            "c/index.ts": 'export default "c/index.ts";',
            "c/mod.js": 'export default "c/mod.js";',
            "d.ts": 'export default "d.ts";',
        },
    )
    assert load(ctx, bundle(tmp_path / "mod.ts", tmp_path)) == ["a.ts", "b.js", "c/mod.js", "d.ts"]  # type: ignore[comparison-overlap]


def test_export_forms_are_all_visible_to_importers(tmp_path: Path, ctx: MiniRacer) -> None:
    write(
        tmp_path,
        {
            "mod.js": 'import * as all from "./e.js";\nimport f, { g as gg } from "./f.js";\n'
            "export default { keys: Object.keys(all), tag: Object.prototype.toString.call(all), f: f(), gg, "
            "frozen: Object.isExtensible(all) };\n",
            "e.js": "export const { a, b: [c], ...rest } = { a: 1, b: [2], z: 3 };\n"
            "export let d = 4, e = 5;\nexport class K {}\nexport function* gen() {}\n"
            'const h = 6;\nexport { h as "h-6", h };\nexport { g as reexported } from "./f.js";\n',
            "f.js": "export default function named() { return 'named'; }\nexport const g = 7;\n",
        },
    )
    manifest = load(ctx, bundle(tmp_path / "mod.js", tmp_path))
    assert manifest == {
        "keys": ["K", "a", "c", "d", "e", "gen", "h", "h-6", "reexported", "rest"],
        "tag": "[object Module]",
        "f": "named",
        "gg": 7,
        "frozen": False,
    }


@pytest.mark.parametrize(
    ("statement", "words"),
    [
        ('import _ from "lodash";', "only relative imports"),
        ('import fs from "node:fs";', "URL imports"),
        ('import x from "https://example.com/x.js";', "URL imports"),
        ('import x from "/etc/passwd";', "absolute paths"),
        ('import x from "..\\\\x";', "plain string literals"),
        ('import x from "../outside.ts";', "leaves the extension folder"),
        ('import x from "./sub/../../outside.ts";', "leaves the extension folder"),
        ('import x from "./missing";', "cannot find module './missing'"),
        ('import { nope } from "./h";', "h.ts does not export 'nope'"),
        ('import h from "./h";', "h.ts does not export 'default'"),
        ('export { nope } from "./h";', "h.ts does not export 'nope'"),
        ('import data from "./h" with { type: "json" };', "import attributes"),
        ('const m = await import("./h");', "dynamic `import()`"),
        ("const url = import.meta.url;", "`import.meta`"),
        ("export const x = 1;\nexport { x };", "'x' is exported twice"),
    ],
)
def test_a_rejected_import_names_the_importing_file_and_line(
    tmp_path: Path, statement: str, words: str
) -> None:
    root = tmp_path / "ext"
    write(tmp_path, {"outside.ts": "export default 1;"})
    write(
        root,
        {
            "mod.ts": f"// header\n{statement}\nexport default {{}};\n",
            "h.ts": "export const x = 1;\n",
        },
    )
    with pytest.raises(ModuleError) as caught:
        bundle(root / "mod.ts", root)
    assert words in caught.value.message
    assert caught.value.path == "mod.ts"
    assert caught.value.line == 2 + statement.count("\n")


def test_an_import_cycle_is_refused_with_the_chain(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "mod.ts": 'import "./a";\nexport default {};\n',
            "a.ts": 'import "./b";\n',
            "b.ts": '\nimport "./a.ts";\n',
        },
    )
    with pytest.raises(ModuleError) as caught:
        bundle(tmp_path / "mod.ts", tmp_path)
    assert str(caught.value) == "b.ts:2:8: import cycle: a.ts -> b.ts -> a.ts"


def test_an_entry_without_a_default_export_is_refused(tmp_path: Path) -> None:
    write(tmp_path, {"mod.ts": "export const x = 1;\n"})
    with pytest.raises(ModuleError, match="no `export default`"):
        bundle(tmp_path / "mod.ts", tmp_path)


def test_a_missing_or_outside_entry_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModuleError, match="does not exist"):
        bundle(tmp_path / "mod.ts", tmp_path)
    with pytest.raises(ModuleError, match="outside the extension folder"):
        bundle(tmp_path / "x.ts", tmp_path / "sub")


def test_a_symlink_leaving_the_extension_folder_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ext"
    write(tmp_path, {"secret.ts": "export default 'secret';\n"})
    write(root, {"mod.ts": '\nimport s from "./link";\nexport default s;\n'})
    os.symlink(tmp_path / "secret.ts", root / "link.ts")
    with pytest.raises(ModuleError) as caught:
        bundle(root / "mod.ts", root)
    assert str(caught.value).startswith("mod.ts:2:15: cannot read link.ts: ")
    assert "outside the extension folder" in str(caught.value)


def test_unreadable_module_text_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, {"mod.ts": 'import "./bin";\nimport "./big";\nexport default 1;\n'})
    (tmp_path / "bin.ts").write_bytes(b"export const x = '\xff';\n")
    with pytest.raises(ModuleError, match=r"^mod.ts:1:8: cannot read bin.ts: module is not UTF-8"):
        bundle(tmp_path / "mod.ts", tmp_path)
    (tmp_path / "bin.ts").write_text("export {};\n")
    (tmp_path / "big.ts").write_text("//" + "x" * MAX_MODULE_BYTES)
    with pytest.raises(ModuleError, match=r"^mod.ts:2:8: cannot read big.ts: module is larger"):
        bundle(tmp_path / "mod.ts", tmp_path)


def test_a_hostile_file_name_cannot_break_out_of_the_source_url(
    tmp_path: Path, ctx: MiniRacer
) -> None:
    # A specifier cannot hold a raw line break (and escapes are refused), but the entry can.
    entry = tmp_path / "e\nglobalThis.pwned = 1 || 0\n.ts"  # valid JS if it escaped
    entry.write_text("export default { ok: true };\nthrow new Error('here');\n")
    result = bundle(entry, tmp_path)
    (url,) = result.codes  # keyed by each module's sourceURL
    assert "\n" not in url and url.startswith("e%0AglobalThis.pwned")
    with pytest.raises(Exception, match="here") as caught:
        load(ctx, result)
    assert f"{url}:2:" in str(caught.value)
    assert ctx.eval("typeof globalThis.pwned") == "undefined"


def test_a_custom_reader_supplies_module_text(tmp_path: Path, ctx: MiniRacer) -> None:
    files = {
        tmp_path / "mod.ts": 'import n from "./n";\nexport default n + 1;\n',
        tmp_path / "n.ts": "export default 41;",
    }

    def read(path: Path) -> str:
        if path not in files:
            raise FileNotFoundError(path)
        return files[path]

    result = bundle(tmp_path / "mod.ts", tmp_path, read)
    ctx.eval(f"globalThis.value = {result.script};")
    assert ctx.eval("value") == 42


@pytest.mark.parametrize("rewritten", [False, True], ids=["positions-kept", "enum-rewritten"])
def test_type_only_imports_and_exports_are_not_bundled(
    tmp_path: Path, ctx: MiniRacer, rewritten: bool
) -> None:
    # An enum is rewritten (byte offsets move, so the module is parsed again as JavaScript);
    # without it the TypeScript tree is reused. Type-only syntax must vanish either way.
    extra = (
        "enum E { A, B }\nexport { E };\n" if rewritten else "const E = { B: 1 };\nexport { E };\n"
    )
    write(
        tmp_path,
        {
            "mod.ts": 'import type { Manifest } from "rho";\nimport type * as T from "../../types";\n'
            'import { type Shape, make, E } from "./shapes";\nexport type { Shape } from "./shapes";\n'
            'export { type Manifest };\nexport default { shape: make("sq"), b: E.B } satisfies Partial<Manifest>;\n',
            "shapes.ts": 'export interface Shape { kind: "sq" | "ci"; size: number }\n'
            'export type Kind = Shape["kind"];\nexport declare const ghost: number;\n'
            "export function make(kind: Kind): Shape { return { kind, size: 1 }; }\n" + extra,
        },
    )
    result = bundle(tmp_path / "mod.ts", tmp_path)
    assert load(ctx, result) == {"shape": {"kind": "sq", "size": 1}, "b": 1}
    assert ctx.eval("Object.keys(globalThis).filter((k) => k.startsWith('__rho')).length") == 0


def test_non_ascii_in_removed_types_keeps_imports_working(tmp_path: Path, ctx: MiniRacer) -> None:
    write(
        tmp_path,
        {
            "mod.ts": 'let note: "café" | "naïve" = "café";\nimport { n } from "./n";\nexport default { note, n };\n',
            "n.ts": 'export const n: "ü" = "ü";\n',
        },
    )
    assert load(ctx, bundle(tmp_path / "mod.ts", tmp_path)) == {"note": "café", "n": "ü"}


def test_deeply_nested_destructuring_exports_bundle_without_recursion_errors(
    tmp_path: Path,
) -> None:
    depth = 3000
    write(
        tmp_path,
        {"mod.js": f"export const {'[' * depth}deep{']' * depth} = [];\nexport default 1;\n"},
    )
    result = bundle(tmp_path / "mod.js", tmp_path)
    assert '["deep", () => deep]' in result.script.replace('\\"', '"')


def test_a_long_import_chain_bundles_and_a_longer_one_is_refused(
    tmp_path: Path, ctx: MiniRacer
) -> None:
    files = {
        f"m{i}.js": f'import v from "./m{i + 1}.js";\nexport default v + 1;\n'
        for i in range(MAX_DEPTH)
    }
    files[f"m{MAX_DEPTH - 1}.js"] = "export default 1;\n"
    write(tmp_path, files)
    assert load(ctx, bundle(tmp_path / "m0.js", tmp_path)) == MAX_DEPTH  # type: ignore[comparison-overlap]
    write(
        tmp_path,
        {f"m{MAX_DEPTH - 1}.js": f'import v from "./m{MAX_DEPTH}.js";\nexport default v;\n'},
    )
    write(tmp_path, {f"m{MAX_DEPTH}.js": "export default 1;\n"})
    with pytest.raises(
        ModuleError, match=f"^m{MAX_DEPTH - 1}.js:1:15: imports nested more than {MAX_DEPTH}"
    ):
        bundle(tmp_path / "m0.js", tmp_path)


def test_more_modules_than_the_limit_are_refused(tmp_path: Path) -> None:
    files = {f"m{i}.js": "export default 1;\n" for i in range(MAX_MODULES)}
    files["mod.js"] = (
        "".join(f'import "./m{i}.js";\n' for i in range(MAX_MODULES)) + "export default 1;\n"
    )
    write(tmp_path, files)
    with pytest.raises(
        ModuleError, match=f"^mod.js:{MAX_MODULES}:8: more than {MAX_MODULES} modules"
    ):
        bundle(tmp_path / "mod.js", tmp_path)


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("const { toolName, arguments } = JSON.parse(args);", 19),  # the book's no-force
        ("let eval = 1;", 5),
        ("function f(arguments: string) { return 1; }", 12),
        ("const g = (eval) => eval;", 12),
        ("const h = eval => 1;", 11),
        ("try { x(); } catch (arguments) { }", 21),
        ("const [a, arguments] = [1, 2];", 11),
        ("const { k: eval } = {};", 12),
        ("const { arguments = 1 } = {};", 9),
        ("function arguments() {}", 10),
        ("class eval {}", 7),
        ("eval = 1;", 1),
        ("arguments += 1;", 1),
        ("eval++;", 1),
        ("for (const arguments of []) {}", 12),
        ("function f(...arguments: string[]) {}", 15),
    ],
)
def test_binding_arguments_or_eval_is_refused_at_its_line(
    tmp_path: Path, line: str, where: int
) -> None:
    write(tmp_path, {"mod.ts": f"// first\n{line}\nexport default {{}};\n"})
    with pytest.raises(ModuleError) as caught:
        bundle(tmp_path / "mod.ts", tmp_path, label="ext")
    assert (caught.value.path, caught.value.line, caught.value.column) == ("ext/mod.ts", 2, where)
    assert "strict mode" in caught.value.message and "rename it" in caught.value.message


def test_reading_arguments_or_eval_is_fine(ctx: MiniRacer, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "mod.ts": (
                "const call = { arguments: '{\"a\": 1}' };\n"
                "const { arguments: text } = call;\n"
                "function count() { return arguments.length; }\n"
                "export default { parsed: JSON.parse(call.arguments).a, text, n: count(1, 2),\n"
                "  e: eval('1 + 1'), f: typeof eval, o: { eval: 1 }.eval };\n"
            )
        },
    )
    assert load(ctx, bundle(tmp_path / "mod.ts", tmp_path)) == {
        "parsed": 1,
        "text": '{"a": 1}',
        "n": 2,
        "e": 2,
        "f": "function",
        "o": 1,
    }
