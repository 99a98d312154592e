"""A small element tree from HTML (the standard library's `html.parser`) and its text form.

Made for rustdoc pages: well-formed, generated HTML. The tree keeps tags, attributes and
text; `render_text` turns a subtree into plain text for the model, with paragraphs and list
items on their own lines, inline code in backticks and code blocks fenced with their line
breaks kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
#: Subtrees never shown: page chrome, scripts, anchors and the playground links.
SKIPPED_TAGS = frozenset({"script", "style", "button", "noscript", "rustdoc-toolbar", "nav"})
SKIPPED_CLASSES = frozenset({"anchor", "doc-anchor", "test-arrow", "src", "tooltip", "rightside"})
_BLOCK_TAGS = frozenset(
    {"div", "section", "details", "summary", "ul", "ol", "table", "tr", "dl", "dt", "dd"}
)
_PARAGRAPH_TAGS = frozenset({"p", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"})
_PRE_MARK = "\x00"


@dataclass(eq=False)
class Element:
    """One HTML element: its tag, attributes, children (elements and text) and parent."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = None

    @property
    def classes(self) -> frozenset[str]:
        """The element's `class` attribute as a set of names."""
        return frozenset(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Element]:
        """This element and every element under it, in document order."""
        stack: list[Element] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(child for child in reversed(node.children) if isinstance(child, Element))

    def find(self, match: Callable[[Element], bool]) -> Element | None:
        """The first element (document order, this one included) for which `match` holds."""
        return next((node for node in self.iter() if match(node)), None)

    def elements(self) -> list[Element]:
        """The element children, without text."""
        return [child for child in self.children if isinstance(child, Element)]

    def next_element(self) -> Element | None:
        """The next sibling element, or None."""
        if self.parent is None:
            return None
        siblings = self.parent.elements()
        index = siblings.index(self)
        return siblings[index + 1] if index + 1 < len(siblings) else None


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root")
        self.stack: list[Element] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parent = self.stack[-1]
        node = Element(tag, {name: value or "" for name, value in attrs}, parent=parent)
        parent.children.append(node)
        if tag not in VOID_TAGS:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parent = self.stack[-1]
        parent.children.append(Element(tag, {n: v or "" for n, v in attrs}, parent=parent))

    def handle_endtag(self, tag: str) -> None:
        # Close up to the matching open element; a stray end tag is ignored.
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(text: str) -> Element:
    """The element tree of `text` under a `#root` element (never raises on bad HTML)."""
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def _skipped(node: Element) -> bool:
    return node.tag in SKIPPED_TAGS or not SKIPPED_CLASSES.isdisjoint(node.classes)


class _Renderer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.blocks: list[str] = []

    def walk(self, node: Element | str, in_code: bool = False) -> None:
        if isinstance(node, str):
            self.parts.append(re.sub(r"\s+", " ", node))
            return
        if _skipped(node):
            return
        tag = node.tag
        if tag == "pre":
            language = "rust" if "rust" in node.classes else "text"
            code = raw_text_skipping(node).strip("\n")
            self.blocks.append(f"```{language}\n{code}\n```")
            self.parts.append(f"\n\n{_PRE_MARK}{len(self.blocks) - 1}{_PRE_MARK}\n\n")
            return
        if tag == "br":
            self.parts.append("\n")
            return
        before, after = _wrapping(tag, in_code)
        self.parts.append(before)
        for child in node.children:
            self.walk(child, in_code or tag == "code")
        self.parts.append(after)

    def text(self) -> str:
        text = "".join(self.parts)
        text = re.sub(r"[ \t]*\n[ \t]*", "\n", text)
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
        return re.sub(f"{_PRE_MARK}(\\d+){_PRE_MARK}", lambda m: self.blocks[int(m.group(1))], text)


def _wrapping(tag: str, in_code: bool) -> tuple[str, str]:
    if tag == "code" and not in_code:
        return "`", "`"
    if tag == "li":
        return "\n- ", ""
    if tag in _PARAGRAPH_TAGS:
        return ("\n\n## ", "\n\n") if tag in {"h2", "h3", "h4", "h5", "h6"} else ("\n\n", "\n\n")
    if tag in _BLOCK_TAGS:
        return "\n", "\n"
    return "", ""


def raw_text_skipping(node: Element) -> str:
    """The text under `node` as written, leaving out the subtrees `render_text` skips."""
    parts: list[str] = []
    stack: list[Element | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
        elif item.tag == "br":
            parts.append("\n")
        elif not _skipped(item):
            if "where" in item.classes:  # a where clause is a block of its own lines
                parts.append("\n")
                stack.append("\n")
            stack.extend(reversed(item.children))
    return "".join(parts)


def render_text(node: Element) -> str:
    """`node` as plain text: blocks on their own lines, code blocks fenced and kept as is."""
    renderer = _Renderer()
    renderer.walk(node)
    return renderer.text()


def inline_text(node: Element) -> str:
    """`node`'s text on one line (whitespace collapsed), e.g. a heading or a short label."""
    return re.sub(r"\s+", " ", raw_text_skipping(node)).strip()


__all__ = [
    "Element",
    "inline_text",
    "parse_html",
    "raw_text_skipping",
    "render_text",
]
