"""strip_types: TypeScript becomes runnable JavaScript with every token where it was."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from py_mini_racer import MiniRacer

from rho_ext_js.typescript import TypeScriptError, strip_types

EXTENSION = """\
/// <reference path="../types/rho.d.ts" />
import type { Manifest } from "./types";

interface SearchArgs {
  query: string;
  limit?: number;
}
type Risk = "read" | "write";
declare const rho: { log(level: string, message: string): void };

enum Level { Low, High = 5, Next, Name = "name" }

abstract class Base<T> {
  protected abstract kind: string;
  abstract describe(): string;
  label(): string { return `base:${this.describe()}`; }
}

class Cache<K, V> extends Base<K> implements Iterable<V> {
  private readonly entries: Map<K, V> = new Map<K, V>();
  public hits: number = 0;
  declare ghost: string;
  size!: number;
  constructor(readonly limit: number, private tag?: string) {
    super();
  }
  get(key: K): V | undefined {
    const value = this.entries.get(key)!;
    if (value !== undefined) this.hits++;
    return value as V | undefined;
  }
  set(key: K, value: V): this {
    this.entries.set(key, value);
    return this;
  }
  describe(): string { return `${this.tag ?? "cache"}/${this.limit}`; }
  *[Symbol.iterator](): Iterator<V> { yield* this.entries.values(); }
}

function first<T>(items: readonly T[], fallback?: T): T | undefined;
function first<T>(items: readonly T[], fallback?: T): T | undefined {
  return items.length > 0 ? items[0] : fallback;
}

const cache = new Cache<string, string>(8, "docs");
const RISK = "read" as const;

export default {
  name: "docs-search",
  version: "1.0.0",
  tools: [{
    name: "search",
    description: "Search documentation",
    risk: RISK satisfies Risk,
    parameters: {
      query: { type: "string", description: "Search query", required: true },
    },
    async execute(args: string): Promise<string> {
      const { query, limit = 3 } = JSON.parse(args) as SearchArgs;
      const hit = cache.get(query);
      if (hit) return hit;
      const found = first<string>([`result for ${query}`], "none")!;
      cache.set(query, found);
      return JSON.stringify({ found, limit, level: Level.High });
    },
  }],
  commands: [{
    name: "stats",
    description: "Cache statistics",
    async handler(args: string) {
      return `${cache.label()} hits=${cache.hits} ${Level[Level.Next]}=${Level.Next} ${Level.Name}`;
    },
  }],
};
"""


@pytest.fixture
def ctx() -> Iterator[MiniRacer]:
    """A real V8 context."""
    context = MiniRacer()
    yield context
    context.close()


def as_script(javascript: str) -> str:
    """A module's JavaScript with its default export stored on a global (for eval)."""
    return javascript.replace("export default", "globalThis.ext =", 1)


def settle(ctx: MiniRacer, expression: str) -> object:
    """The value of a promise-returning JS `expression` (microtasks run after each eval)."""
    ctx.eval(f"globalThis.out = undefined; ({expression}).then((v) => {{ globalThis.out = v; }})")
    return ctx.eval("globalThis.out")


def test_a_typescript_extension_in_the_book_format_runs_in_v8(ctx: MiniRacer) -> None:
    js = strip_types(EXTENSION)
    ctx.eval(as_script(js))
    manifest = json.loads(ctx.eval("JSON.stringify(ext)"))
    assert manifest["name"] == "docs-search"
    assert manifest["tools"][0]["risk"] == "read"
    assert manifest["tools"][0]["parameters"]["query"]["required"] is True
    result = json.loads(str(settle(ctx, 'ext.tools[0].execute(\'{"query": "vec"}\')')))
    assert result == {"found": "result for vec", "limit": 3, "level": 5}
    assert settle(ctx, 'ext.tools[0].execute(\'{"query": "vec"}\')') == "result for vec"  # cached
    stats = settle(ctx, 'ext.commands[0].handler("")')
    assert stats == "base:docs/8 hits=1 Next=6 name"


def test_parameter_properties_become_assignments_after_super(ctx: MiniRacer) -> None:
    js = strip_types(EXTENSION)
    ctx.eval(as_script(js))
    assert ctx.eval("new (class extends Object {})() instanceof Object") is True
    assert "super(); this.limit = limit; this.tag = tag;" in js.replace("\n    ", " ")


def test_removed_text_becomes_spaces_so_every_token_keeps_line_and_column() -> None:
    source = EXTENSION.split("enum Level")[0] + "function g<T>(x: T): T { return x as T; }\n"
    js = strip_types(source)
    assert len(js) == len(source)
    for out, src in zip(js, source, strict=True):
        assert out == src or out == " "
    assert js.splitlines()[-1] == "function g   (x   )    { return x     ; }"


def test_a_throw_reports_the_line_and_column_of_the_typescript_source(ctx: MiniRacer) -> None:
    source = (
        "interface A { x: number }\n"
        "type B = A;\n"
        "const f = <T,>(a: T): T => a;\n"
        "const v: number = f<number>(1) as number;\n"
        "function boom(message: string): never { throw new Error(message); }\n"
        "boom(String(v!));\n"
    )
    with pytest.raises(Exception) as caught:
        ctx.eval(strip_types(source) + "\n//# sourceURL=ext.ts")
    column = source.splitlines()[4].index("new Error") + 1
    assert f"at boom (ext.ts:5:{column})" in str(caught.value)
    assert "at ext.ts:6:1" in str(caught.value)


def test_non_ascii_inside_removed_types_keeps_character_columns() -> None:
    source = 'let x: "héllo" | "wörld" = "héllo"; let y = 1;\n'
    js = strip_types(source)
    assert len(js) == len(source)
    assert js.index("let y") == source.index("let y")


CASES = [
    ("let a: number = 1;", "let a = 1;"),
    ("function f(a?: string, ...r: number[]): void {}", "function f(a, ...r) {}"),
    ("const g = (x?: number): x is number => true;", "const g = (x) => true;"),
    ("f<string, number>(1); new Map<string, number>();", "f(1); new Map();"),
    ("const c = [1, 2] as const;", "const c = [1, 2];"),
    ("const d = (x as any).y satisfies T;", "const d = (x).y;"),
    ("const e = <any>x;", "const e = x;"),
    ("const h = a!.b!;", "const h = a.b;"),
    ("let w!: number;", "let w;"),
    ("interface I { x: number }", ""),
    ("export interface I { x: number }", ""),
    ("type T<U> = U[];", ""),
    ("export type T = string;", ""),
    ("declare const rho: any;", ""),
    ("declare module 'm' { export const x: number; }", ""),
    ("declare global { interface Window { x: 1 } }", ""),
    ("function o(a: string): void;\nfunction o(a: any) {}", "function o(a) {}"),
    ("import type { A } from './a';", ""),
    ("import { type A, b } from './a';", "import { b } from './a';"),
    ("import { type A, type B } from './a';", ""),
    ("export type { A } from './a';", ""),
    ("export { type A, b };", "export { b };"),
    ("class C<T> implements I, J { x?: number; }", "class C { x; }"),
    (
        "abstract class A { abstract m(): void; abstract p: number; n() {} }",
        "class A { ; ; n() {} }",
    ),
    (
        "class K { public a = 1; private b = 2; protected c; readonly d = 3; }",
        "class K { a = 1; b = 2; c; d = 3; }",
    ),
    (
        "class M { override m(): void {} static s?: string; q?() {} }",
        "class M { m() {} static s; q() {} }",
    ),
    ("class N { [key: string]: unknown; m(): void; m() {} }", "class N { ; ; m() {} }"),
    ("function t(this: Window, a: number) {}", "function t( a) {}"),
    ("let { a, b }: { a: number; b: string } = o;", "let { a, b } = o;"),
    ("const fn = async <T>(x: T): Promise<T> => x;", "const fn = async (x) => x;"),
    ('/// <reference path="x.d.ts" />\nlet a = 1;', '/// <reference path="x.d.ts" />\nlet a = 1;'),
    ('export default { risk: "read" as const };', 'export default { risk: "read" };'),
]


@pytest.mark.parametrize(("typescript", "javascript"), CASES)
def test_type_syntax_is_removed_and_nothing_else(typescript: str, javascript: str) -> None:
    out = strip_types(typescript)
    assert "".join(out.split()) == "".join(javascript.split())
    assert len(out) == len(typescript)
    assert all(o == t or o == " " for o, t in zip(out, typescript, strict=True))


def test_an_enum_becomes_an_object_like_typescript_builds_it(ctx: MiniRacer) -> None:
    js = strip_types('enum E {\n  A,\n  B = 1 << 3,\n  C,\n  "d-e" = "x",\n}\nconst enum F { X }\n')
    assert js.count("\n") == 7
    ctx.eval(js + "globalThis.r = JSON.stringify([E, F]);")
    assert json.loads(str(ctx.eval("r"))) == [
        {"0": "A", "8": "B", "9": "C", "A": 0, "B": 8, "C": 9, "d-e": "x"},
        {"0": "X", "X": 0},
    ]


def test_exported_enum_and_parameter_properties_without_a_base_class(ctx: MiniRacer) -> None:
    js = strip_types("class P { constructor(public x: number, y: number) { this.y = y; } }")
    ctx.eval(js + "globalThis.p = JSON.stringify(new P(1, 2));")
    assert json.loads(str(ctx.eval("p"))) == {"x": 1, "y": 2}
    assert strip_types("export enum E { A }").startswith("export const E =")


@pytest.mark.parametrize(
    ("source", "line", "column", "words"),
    [
        ("let a = 1;\nlet b = (;\n", 2, None, "syntax error"),
        ("function f(a: number {\n}", 1, None, "syntax error"),
        ("let x = 1;\nnamespace N { export const y = 1; }", 2, 1, "namespaces"),
        ("module M {}", 1, 1, "namespaces"),
        ("@sealed\nclass C {}", 1, 1, "decorators"),
        ("import fs = require('fs');", 1, 8, "require"),
        ("const x = 1;\nexport = x;", 2, 1, "export ="),
        ("class D extends B {\n  constructor(private a: number) { f(); }\n}", 2, 3, "super"),
        ("class D {\n  constructor(private { a }: any) {}\n}", 2, 15, "plain name"),
    ],
)
def test_unsupported_or_broken_typescript_raises_an_error_naming_the_place(
    source: str, line: int, column: int | None, words: str
) -> None:
    with pytest.raises(TypeScriptError) as caught:
        strip_types(source)
    assert caught.value.line == line
    if column is not None:
        assert caught.value.column == column
    assert words in caught.value.message
    assert str(caught.value).startswith(f"{line}:{caught.value.column}: ")


def test_a_source_without_type_syntax_is_returned_unchanged() -> None:
    source = "const a = 1 < 2, b = a ? 3 : 4;\nlabel: for (;;) { break label; }\nx?.y?.(z);\n"
    assert strip_types(source) == source


# Programs built only from plain JavaScript (no construct that reads differently as
# TypeScript, such as `a < b > (c)`), so stripping them must change nothing.
NAMES = st.sampled_from(["a", "b", "value", "count", "items", "result", "x1", "_tmp", "$el"])
NUMBERS = st.integers(min_value=0, max_value=10_000).map(str)
STRINGS = st.text(alphabet="abc xyz:?!<>", max_size=8).map(json.dumps)
ATOMS = st.one_of(NAMES, NUMBERS, STRINGS, st.sampled_from(["true", "null", "this", "[]", "{}"]))


def expressions() -> st.SearchStrategy[str]:
    """Nested JavaScript expressions."""
    return st.recursive(
        ATOMS,
        lambda inner: st.one_of(
            st.tuples(
                inner, st.sampled_from(["+", "-", "*", "===", "&&", "||", "??", "<=", ">>"]), inner
            ).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
            st.tuples(NAMES, st.lists(inner, max_size=3)).map(
                lambda t: f"{t[0]}({', '.join(t[1])})"
            ),
            st.tuples(NAMES, NAMES).map(lambda t: f"{t[0]}?.{t[1]}"),
            st.lists(inner, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
            st.tuples(NAMES, inner).map(lambda t: f"{{ {t[0]}: {t[1]} }}"),
            st.tuples(NAMES, inner).map(lambda t: f"(({t[0]}) => {t[1]})"),
            inner.map(lambda e: f"`t ${{{e}}} u`"),
            inner.map(lambda e: f"!{e}"),
        ),
        max_leaves=8,
    )


def statements() -> st.SearchStrategy[str]:
    """JavaScript statements, some nested."""
    simple = st.one_of(
        st.tuples(st.sampled_from(["const", "let", "var"]), NAMES, expressions()).map(
            lambda t: f"{t[0]} {t[1]} = {t[2]};"
        ),
        expressions().map(lambda e: f"{e};"),
        st.tuples(NAMES, NAMES, expressions()).map(
            lambda t: f"function {t[0]}({t[1]}) {{ return {t[2]}; }}"
        ),
        st.tuples(NAMES, NAMES, expressions()).map(
            lambda t: f"class {t[0].upper()} {{ static {t[1]} = 1; m() {{ return {t[2]}; }} }}"
        ),
        st.just("// a comment: x as T"),
        st.just("/* type A = B; */"),
    )
    return st.recursive(
        simple,
        lambda inner: st.one_of(
            st.tuples(expressions(), st.lists(inner, max_size=3)).map(
                lambda t: f"if ({t[0]}) {{\n" + "\n".join(t[1]) + "\n}"
            ),
            st.lists(inner, max_size=3).map(
                lambda xs: "for (const k of items) {\n" + "\n".join(xs) + "\n}"
            ),
        ),
        max_leaves=6,
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(statements(), max_size=8))
def test_stripping_a_javascript_program_returns_it_unchanged(program: list[str]) -> None:
    source = "\n".join(program) + "\n"
    assert strip_types(source) == source
