"""The `rustdoc_lookup` tool: a standard library item's documentation from the local docs.

The query (`Vec`, `std::collections::HashMap`, `Option::map`, `Display`, `str`,
`println!`) is resolved against the index of `std`, `core` and `alloc`
(`rho_tools_rust.rustdoc_index`), the item's page is read from the local rustup
documentation and the requested section comes back as text.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

from rho_kernel import escape_tags, open_regular
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_rust.diagnostics import collector_paused
from rho_tools_rust.html_text import Element, render_text
from rho_tools_rust.rustdoc_index import Entry, resolve
from rho_tools_rust.rustdoc_page import ItemPage, Member, read_item_page
from rho_tools_rust.rustdoc_root import DocsUnavailable, load_docs

Section = Literal["all", "methods", "traits", "examples", "signature"]
MAX_OUTPUT_CHARS = 12_000
#: How much of an item's docs `section=all` shows, leaving room for its methods and traits.
MAX_DOCS_CHARS = 5_000
#: Owner pages tried for `Type::member` when the first one has no such member.
MAX_OWNER_PAGES = 3
_PAGE_CACHE_SIZE = 8
_pages: OrderedDict[Path, ItemPage] = OrderedDict()


def _read_page(path: Path) -> ItemPage:
    if path in _pages:
        _pages.move_to_end(path)
        return _pages[path]
    with open_regular(path) as handle:  # a FIFO under target/doc: refused, never waited on
        text = handle.read().decode("utf-8", errors="replace")
    # A page is a tree of tens of thousands of elements, all alive while it is built: the
    # collections its allocations would start (each walking every object rho holds) find
    # nothing to free and took two thirds of the time.
    with collector_paused():
        page = read_item_page(text)
    _pages[path] = page
    if len(_pages) > _PAGE_CACHE_SIZE:
        _pages.popitem(last=False)
    return page


def _examples(docs: Element | None) -> str:
    if docs is None:
        return "(no examples)"
    blocks = [node for node in docs.iter() if node.tag == "pre"]
    if not blocks:
        return "(no examples)"
    return "\n\n".join(render_text(block) for block in blocks)


def _first_paragraph(docs: Element | None) -> str:
    if docs is None:
        return ""
    paragraph = docs.find(lambda node: node.tag == "p")
    return render_text(paragraph) if paragraph is not None else ""


def _fenced(code: str) -> str:
    return f"```rust\n{code}\n```" if code else ""


def render_methods(page: ItemPage) -> str:
    """Each of the item's own methods: its signature and the first paragraph of its docs."""
    methods = page.own_methods()
    if not methods:
        return "Methods: none"
    parts = [f"Methods ({len(methods)}):"]
    for method in methods:
        summary = _first_paragraph(method.docs)
        parts.append(f"{_fenced(method.signature)}\n{summary}".rstrip())
    return "\n\n".join(parts)


def render_traits(page: ItemPage) -> str:
    """The trait impls of the item, one `impl … for …` header a line, per kind."""
    if not page.impls:
        return "Trait implementations: none"
    return "\n\n".join(
        f"{heading} ({len(headers)}):\n" + "\n".join(f"- {header}" for header in headers)
        for heading, headers in page.impls.items()
    )


def render_item(page: ItemPage, section: str) -> str:
    """The requested section of the item page as text."""
    head = "\n\n".join(part for part in (page.title, _fenced(page.declaration)) if part)
    if section == "signature":
        return head or "(no declaration)"
    if section == "examples":
        return f"{page.title}\n\n{_examples(page.docs)}"
    if section == "methods":
        return f"{page.title}\n\n{render_methods(page)}"
    if section == "traits":
        return f"{page.title}\n\n{render_traits(page)}"
    docs = render_text(page.docs) if page.docs is not None else ""
    if len(docs) > MAX_DOCS_CHARS:
        docs = docs[:MAX_DOCS_CHARS].rstrip() + "\n[… docs cut; section=examples gives the code]"
    signatures = [method.signature.split("\n")[0] for method in page.own_methods()]
    methods = "Methods:\n" + "\n".join(f"- {sig}" for sig in signatures) if signatures else ""
    traits = render_traits(page) if page.impls else ""
    return "\n\n".join(p for p in (head, docs, methods, traits) if p)


def render_member(page: ItemPage, member: Member, section: str) -> str:
    """One member (`Option::map`) of an item: its signature, and its docs or examples."""
    head = f"{page.title} › {member.anchor}\n\n{_fenced(member.signature)}"
    if section == "signature":
        return head
    if section == "examples":
        return f"{head}\n\n{_examples(member.docs)}"
    docs = render_text(member.docs) if member.docs is not None else "(no documentation)"
    return f"{head}\n\n{docs}"


def _capped(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return (
        text[:MAX_OUTPUT_CHARS].rstrip()
        + f"\n\n[rustdoc_lookup: cut at {MAX_OUTPUT_CHARS} characters; ask for one section "
        "(signature, methods, traits, examples) or one member such as `Type::method`]"
    )


def _lookup(
    root: Path, entries: tuple[Entry, ...], member: str | None, section: str
) -> tuple[Entry, str] | None:
    if member is None:
        entry = entries[0]
        return entry, render_item(_read_page(root / entry.relpath), section)
    for entry in entries[:MAX_OWNER_PAGES]:
        page = _read_page(root / entry.relpath)
        found = page.member(member)
        if found is not None:
            return entry, render_member(page, found, section)
    return None


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    query = str(arguments.get("query", ""))[:80]
    details = result.details if isinstance(result.details, dict) else {}
    where = details.get("relpath") or ("not resolved" if result.is_error else "?")
    return f"rustdoc_lookup {query}: {where}"


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline)
async def rustdoc_lookup(query: str, section: Section = "all", *, ctx: ToolContext) -> ToolResult:
    """Look up a Rust standard library item (std, core, alloc) in the local documentation.

    Gives the item's declaration and docs as text: types, traits, primitives, macros,
    functions and members such as `Option::map`. Use it to check exact signatures and
    method names instead of guessing.

    Args:
        query: The item, e.g. `Vec`, `std::collections::HashMap`, `Option::map`, `Display`, `str`, `println!`.
        section: What to return: all (default), methods (signatures and summaries), traits (implemented traits), examples (code blocks), signature (just the declaration).
    """
    unresolved = ToolResult.error(f"could not resolve '{query[:200]}' to any rustdoc page")
    try:
        docs = await load_docs(ctx.command_environment())
    except DocsUnavailable as exc:
        return ToolResult.error(str(exc))
    target = resolve(docs.index, query)
    if target is None:
        return unresolved
    try:
        found = await asyncio.to_thread(_lookup, docs.root, target.entries, target.member, section)
    except OSError as exc:
        return ToolResult.error(
            f"rustdoc_lookup: cannot read the documentation page: {exc.strerror or exc}"
        )
    if found is None:
        return unresolved
    entry, text = found
    body = escape_tags(_capped(text), ["stdlib"])
    output = f'<stdlib reference query="{entry.relpath}">\n{body}\n</stdlib reference>'
    anchor = f"#{target.member}" if target.member else ""
    return ToolResult(output, details={"relpath": entry.relpath, "member": anchor[1:] or None})


__all__ = [
    "MAX_OUTPUT_CHARS",
    "render_item",
    "render_member",
    "render_methods",
    "render_traits",
    "rustdoc_lookup",
]
