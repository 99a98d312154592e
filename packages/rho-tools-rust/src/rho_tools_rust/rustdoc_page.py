"""The parts of one rustdoc item page: title, declaration, docs, members and trait impls."""

from __future__ import annotations

from dataclasses import dataclass, field

from rho_tools_rust.html_text import Element, inline_text, parse_html, raw_text_skipping

MEMBER_PREFIXES = (
    "method.",
    "tymethod.",
    "variant.",
    "structfield.",
    "associatedconstant.",
    "associatedtype.",
)
#: Page sections whose methods belong to trait impls, not to the item itself.
TRAIT_SECTIONS = frozenset(
    {"trait-implementations", "synthetic-implementations", "blanket-implementations"}
)
_IMPL_SECTIONS = {
    "trait-implementations": "Trait implementations",
    "synthetic-implementations": "Auto trait implementations",
    "blanket-implementations": "Blanket implementations",
}


@dataclass
class Member:
    """A method, variant, field or associated item: its anchor, signature and docs."""

    anchor: str
    signature: str
    docs: Element | None
    section: str


@dataclass
class ItemPage:
    """What a rustdoc item page says, ready to render."""

    title: str = ""
    declaration: str = ""
    docs: Element | None = None
    members: list[Member] = field(default_factory=list)
    impls: dict[str, list[str]] = field(default_factory=dict)

    def member(self, name: str) -> Member | None:
        """The first member whose anchor is `{prefix}{name}` (`method.map`, `tymethod.fmt`)."""
        anchors = {prefix + name for prefix in MEMBER_PREFIXES}
        return next((m for m in self.members if m.anchor in anchors), None)

    def own_methods(self) -> list[Member]:
        """Inherent, required and provided methods (not those of trait impls)."""
        return [
            m
            for m in self.members
            if m.anchor.startswith(("method.", "tymethod.")) and m.section not in TRAIT_SECTIONS
        ]


def _docblock_after(section: Element) -> Element | None:
    following = section.next_element()
    if following is None and section.parent is not None and section.parent.tag == "summary":
        following = section.parent.next_element()
    if following is not None and "docblock" in following.classes:
        return following
    return None


def _top_docs(main: Element) -> Element | None:
    top = main.find(lambda node: node.tag == "details" and "top-doc" in node.classes)
    scope = top if top is not None else main
    return scope.find(lambda node: node.tag == "div" and "docblock" in node.classes)


def _heading(node: Element) -> bool:
    return node.tag in {"h3", "h4"} and "code-header" in node.classes


def read_item_page(html: str) -> ItemPage:
    """The parts of the item page `html` (unknown layouts give empty parts, never errors)."""
    tree = parse_html(html)
    main = tree.find(lambda node: node.attrs.get("id") == "main-content") or tree
    page = ItemPage()
    if (title := main.find(lambda node: node.tag == "h1")) is not None:
        page.title = inline_text(title)
    declaration = main.find(lambda node: node.tag == "pre" and "item-decl" in node.classes)
    if declaration is not None:
        page.declaration = raw_text_skipping(declaration).strip()
    page.docs = _top_docs(main)
    section = ""
    for node in main.iter():
        if node.tag == "h2" and node.attrs.get("id"):
            section = node.attrs["id"]
        elif node.tag != "section":
            continue
        elif node.attrs.get("id", "").startswith(MEMBER_PREFIXES):
            header = node.find(_heading)
            signature = raw_text_skipping(header).strip() if header else node.attrs["id"]
            page.members.append(Member(node.attrs["id"], signature, _docblock_after(node), section))
        elif "impl" in node.classes and section in _IMPL_SECTIONS:
            header = node.find(_heading)
            if header is not None:
                page.impls.setdefault(_IMPL_SECTIONS[section], []).append(inline_text(header))
    return page


__all__ = ["ItemPage", "Member", "read_item_page"]
