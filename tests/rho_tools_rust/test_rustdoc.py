"""rustdoc_lookup on the real local rustup documentation: resolution, sections, hostile queries."""

from __future__ import annotations

import os
import pwd
import re
from pathlib import Path
from typing import Any

import pytest
from rust_crates import hostile_toolchain, needs_docs, needs_rustup  # type: ignore[import-not-found]

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult
from rho_tools_rust import rustdoc_root
from rho_tools_rust.html_text import parse_html, render_text
from rho_tools_rust.rustdoc import MAX_OUTPUT_CHARS, rustdoc_lookup
from rho_tools_rust.rustdoc_root import NO_RUST, NOT_INSTALLED

REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)
REAL_RUSTUP_HOME = os.environ.get("RUSTUP_HOME") or str(REAL_HOME / ".rustup")
REAL_CARGO_HOME = os.environ.get("CARGO_HOME") or str(REAL_HOME / ".cargo")
FRAME = re.compile(r'<stdlib reference query="([^"]+)">\n(.*)\n</stdlib reference>', re.S)


@pytest.fixture(scope="module")
def module_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One temp HOME for the module's lookups.

    The docs and their index are kept per process for a (RUSTUP_HOME, HOME) pair: with a
    fresh HOME per test every lookup ran rustup and parsed the three `all.html` pages again
    (most of this module's time). The tests that are about finding the docs drop what was
    found themselves (`forget_docs`) or use their own RUSTUP_HOME.
    """
    return tmp_path_factory.mktemp("rustdoc-home")


@pytest.fixture(autouse=True)
def real_toolchain(monkeypatch: pytest.MonkeyPatch, module_home: Path) -> None:
    """HOME is a temp folder in the suite; the toolchain and its docs stay the real ones."""
    monkeypatch.setenv("HOME", str(module_home))
    monkeypatch.setenv("RUSTUP_HOME", REAL_RUSTUP_HOME)
    monkeypatch.setenv("CARGO_HOME", REAL_CARGO_HOME)


async def lookup(tmp_path: Path, **args: Any) -> ToolResult:
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    return await rustdoc_lookup.execute(dict(args), ctx)


def framed(result: ToolResult) -> tuple[str, str]:
    assert not result.is_error, result.output
    match = FRAME.fullmatch(result.output)
    assert match is not None, result.output[:300]
    return match.group(1), match.group(2)


def test_declares_read_exploration() -> None:
    assert rustdoc_lookup.risk == Risk.READ
    assert rustdoc_lookup.phase == Phase.EXPLORATION
    enum = rustdoc_lookup.parameters["properties"]["section"]["enum"]
    assert enum == ["all", "methods", "traits", "examples", "signature"]


@needs_docs
async def test_vec_resolves_to_the_std_struct_with_docs_and_methods(tmp_path: Path) -> None:
    result = await lookup(tmp_path, query="Vec")
    relpath, body = framed(result)
    assert relpath == "std/vec/struct.Vec.html"
    assert "pub struct Vec<T, A = Global>" in body
    assert "A contiguous growable array type" in body
    assert "pub fn push(&mut self, value: T)" in body
    assert len(body) <= MAX_OUTPUT_CHARS + 300
    assert rustdoc_lookup.outline({"query": "Vec"}, result) == (
        "rustdoc_lookup Vec: std/vec/struct.Vec.html"
    )


@needs_docs
async def test_method_query_gives_the_method_signature_and_docs(tmp_path: Path) -> None:
    result = await lookup(tmp_path, query="Option::map")
    relpath, body = framed(result)
    assert relpath == "std/option/enum.Option.html"
    assert "pub fn map<U, F>(self, f: F) -> Option<U>\nwhere\n    F: FnOnce(T) -> U," in body
    assert "Maps an `Option<T>` to `Option<U>`" in body
    assert "is_some_and" not in body
    assert rustdoc_lookup.outline({"query": "Option::map"}, result) == (
        "rustdoc_lookup Option::map: std/option/enum.Option.html"
    )


@needs_docs
async def test_display_prefers_the_fmt_trait_over_structs_named_display(tmp_path: Path) -> None:
    relpath, body = framed(await lookup(tmp_path, query="Display", section="signature"))
    assert relpath == "std/fmt/trait.Display.html"
    assert "pub trait Display" in body
    assert "fn fmt(&self, f: &mut Formatter<'_>)" in body


@needs_docs
async def test_primitive_str_and_its_methods(tmp_path: Path) -> None:
    relpath, body = framed(await lookup(tmp_path, query="str", section="methods"))
    assert relpath == "std/primitive.str.html"
    assert "pub const fn len(&self) -> usize" in body
    relpath, _ = framed(await lookup(tmp_path, query="u32"))
    assert relpath == "std/primitive.u32.html"


@needs_docs
async def test_macro_query_keeps_code_blocks_with_line_breaks(tmp_path: Path) -> None:
    relpath, body = framed(await lookup(tmp_path, query="println!"))
    assert relpath == "std/macro.println.html"
    assert "macro_rules! println {\n    () => { ... };" in body
    assert '```rust\nprintln!(); // prints just a newline\nprintln!("hello there!");' in body


@needs_docs
async def test_qualified_path_with_methods_section(tmp_path: Path) -> None:
    relpath, body = framed(
        await lookup(tmp_path, query="std::collections::HashMap", section="methods")
    )
    assert relpath.startswith("std/collections/") and relpath.endswith("struct.HashMap.html")
    assert "pub fn insert(&mut self, k: K, v: V) -> Option<V>" in body
    assert "Inserts a key-value pair into the map." in body
    relpath, _ = framed(await lookup(tmp_path, query="core::fmt::Display", section="signature"))
    assert relpath == "core/fmt/trait.Display.html"


@needs_docs
async def test_traits_and_examples_sections(tmp_path: Path) -> None:
    _, traits = framed(await lookup(tmp_path, query="Vec", section="traits"))
    assert "impl<T, A> Clone for Vec<T, A>" in traits
    assert "pub fn" not in traits
    _, examples = framed(await lookup(tmp_path, query="Option::map", section="examples"))
    assert "maybe_some_string.map(|s| s.len());" in examples
    assert "Maps an" not in examples


@needs_docs
async def test_unknown_query_is_a_clear_error(tmp_path: Path) -> None:
    for query in ["NoSuchTypeAnywhere", "Option::no_such_method", "std::nothing::Here"]:
        result = await lookup(tmp_path, query=query)
        assert result.is_error
        assert result.output == f"could not resolve '{query}' to any rustdoc page"


@pytest.mark.parametrize(
    "query",
    [
        "../../etc/passwd",
        "/etc/passwd",
        "<script>",
        "std/../../../../etc/passwd",
        "Vec\x00",
        "a" * 10_000,
        "Option::../../x",
        "",
    ],
)
@needs_docs
async def test_hostile_queries_do_not_resolve(tmp_path: Path, query: str) -> None:
    result = await lookup(tmp_path, query=query)
    assert result.is_error
    assert result.output.startswith("could not resolve '")
    assert len(result.output) < 300


@needs_rustup
async def test_empty_rustup_home_says_the_docs_are_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "rustup-home"
    empty.mkdir()
    monkeypatch.setenv("RUSTUP_HOME", str(empty))
    result = await lookup(tmp_path, query="Vec")
    assert result.is_error
    assert result.output == NOT_INSTALLED
    assert "rustup component add rust-docs" in result.output


async def test_no_rust_toolchain_says_to_install_rust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUSTUP_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    result = await lookup(tmp_path, query="Vec")
    assert result.is_error
    assert result.output == NO_RUST


@needs_docs
async def test_docs_found_once_are_kept_for_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rustdoc_root.forget_docs()
    framed(await lookup(tmp_path, query="Vec"))

    async def no_rustup(env: object) -> Path | None:
        raise AssertionError("rustup asked again")

    monkeypatch.setattr(rustdoc_root, "rustup_doc_path", no_rustup)
    relpath, _ = framed(await lookup(tmp_path, query="String"))
    assert relpath == "std/string/struct.String.html"


@needs_docs
async def test_a_projects_toolchain_file_does_not_choose_the_documentation(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    hostile_toolchain(project, tmp_path / "ran")
    rustdoc_root.forget_docs()
    relpath, _ = framed(await lookup(project, query="Vec"))
    assert relpath == "std/vec/struct.Vec.html"
    assert project not in (await rustdoc_root.load_docs(dict(os.environ))).root.parents


def test_html_text_keeps_code_lines_and_marks_inline_code() -> None:
    tree = parse_html(
        "<div class='docblock'><p>Use <code>x</code>\n  here.</p>"
        "<pre class='rust'><code>fn a() {\n    b();\n}</code></pre>"
        "<ul><li>one</li><li>two</li></ul><a class='anchor'>§</a></div>"
    )
    assert (
        render_text(tree) == "Use `x` here.\n\n```rust\nfn a() {\n    b();\n}\n```\n\n- one\n- two"
    )
