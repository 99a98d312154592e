"""Syntax checks of an edit with tree-sitter (grammars from tree-sitter-language-pack).

`check` parses the file before and after an edit — the "after" tree incrementally from the
"before" tree, so only the edited regions are re-parsed — and reports

- the ERROR and MISSING nodes of the new text that the old text did not have (an edit is not
  blamed for errors that were already there), with line and column, nearest the edit first;
  an ERROR node that tree-sitter's recovery stretched from lines above the edit over it is
  pointed at on the edit's line, not where it starts;
- for exact-match edits, every edit boundary that falls inside a token (an identifier, a
  keyword, a number, an operator) rather than between tokens: `old_text` that starts or ends
  in the middle of a word usually means a mistaken match. Boundaries inside comments,
  strings and other free text are normal and not reported, nor is anything in prose
  languages (Markdown, reStructuredText, …).

Trees are cached by the hash of the text they parse (a bounded LRU), so the tree of a file
just edited serves as the "before" tree of the next edit. tree-sitter is imported on first use.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from rho_tools_fs.languages import PROSE

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

#: Files larger than this are not checked (bytes).
MAX_SYNTAX_BYTES = 4 * 1024 * 1024
#: Parse trees kept for reuse.
CACHE_SIZE = 16
#: New syntax errors listed at most (the rest are counted).
MAX_LISTED = 5
_MAX_COLLECTED = 200
_SNIPPET_CHARS = 40
_FREE_TEXT = re.compile(r"comment|string|heredoc|char|text|template|doc|regex|fragment|content")


Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ByteEdit:
    """One replaced range, in bytes and (row, byte column) points, as tree-sitter wants it."""

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start_point: Point
    old_end_point: Point
    new_end_point: Point


@dataclass(frozen=True, slots=True)
class SyntaxIssue:
    """A syntax error in the new text: 1-based line and column (in characters), and what."""

    line: int
    column: int
    message: str


@dataclass(frozen=True, slots=True)
class NodeSplit:
    """An edit boundary inside a token: which edit, `start` or `end`, the token's kind and text."""

    edit: int
    boundary: str
    kind: str
    text: str


@dataclass
class SyntaxReport:
    """What `check` found."""

    language: str
    new_errors: list[SyntaxIssue] = field(default_factory=list)
    new_error_count: int = 0
    splits: list[NodeSplit] = field(default_factory=list)


#: `hidden(line)`: whether 1-based `line` of a text is not shown (a private key's line).
HiddenLines = Callable[[int], bool]


def _none_hidden(_line: int) -> bool:
    return False


class TreeCache:
    """Parse trees keyed by (language, content hash), least recently used dropped first.

    A thread about to parse a text `reserve`s its key, so that another thread wanting the
    same tree `wait`s for that parse instead of doing it again (see `rho_tools_fs.preparse`).
    """

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._trees: OrderedDict[tuple[str, bytes], Tree] = OrderedDict()
        self._parsing: dict[tuple[str, bytes], threading.Event] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(language: str, data: bytes) -> tuple[str, bytes]:
        """The cache key of `data` parsed as `language`."""
        return language, hashlib.blake2b(data, digest_size=16).digest()

    def get(self, key: tuple[str, bytes]) -> Tree | None:
        """The cached tree for `key`, or None."""
        with self._lock:
            tree = self._trees.get(key)
            if tree is not None:
                self._trees.move_to_end(key)
            return tree

    def put(self, key: tuple[str, bytes], tree: Tree) -> None:
        """Remember `tree` (never edited afterwards: users edit a copy)."""
        with self._lock:
            self._trees[key] = tree
            self._trees.move_to_end(key)
            while len(self._trees) > self.size:
                self._trees.popitem(last=False)

    def reserve(self, key: tuple[str, bytes]) -> bool:
        """Claim the parse of `key`: False if its tree is cached or another thread parses it."""
        with self._lock:
            if key in self._trees or key in self._parsing:
                return False
            self._parsing[key] = threading.Event()
            return True

    def release(self, key: tuple[str, bytes], tree: Tree | None) -> None:
        """End the claimed parse of `key`, remembering its tree (None: the parse failed)."""
        if tree is not None:
            self.put(key, tree)
        with self._lock:
            done = self._parsing.pop(key, None)
        if done is not None:
            done.set()

    def wait(self, key: tuple[str, bytes], timeout: float) -> Tree | None:
        """The tree of `key`, waiting up to `timeout` seconds if another thread parses it."""
        with self._lock:
            parsing = self._parsing.get(key)
        if parsing is not None:
            parsing.wait(timeout)
        return self.get(key)

    def __len__(self) -> int:
        return len(self._trees)


CACHE = TreeCache()
_languages: dict[str, Any] = {}
_languages_lock = threading.Lock()
# An edit waits at most this long for a background parse of its file to finish.
_WAIT_SECONDS = 5.0
# Bytes handed to tree-sitter per read in a background parse.
_CHUNK = 64 * 1024


def _parser(language: str) -> Any:
    """A new parser for `language` (parsers are not shared between threads)."""
    from tree_sitter import Parser
    from tree_sitter_language_pack import get_language

    with _languages_lock:
        if language not in _languages:
            _languages[language] = get_language(language)  # type: ignore[arg-type]
    return Parser(_languages[language])


def _parse(language: str, data: bytes, cache: TreeCache) -> Tree:
    key = cache.key(language, data)
    tree = cache.get(key) or cache.wait(key, _WAIT_SECONDS)
    if tree is not None:
        return tree
    claimed = cache.reserve(key)
    try:
        tree = _parser(language).parse(data)
    finally:
        if claimed:
            cache.release(key, tree)
    if not claimed:
        cache.put(key, tree)
    return cast("Tree", tree)


def parse_politely(language: str, data: bytes, stop: Callable[[], bool]) -> Tree | None:
    """Parse `data` as `language` in a background thread, letting other threads run meanwhile.

    tree-sitter holds the GIL for a whole parse of a byte string (about 50 ms for 10,000
    lines of Python); fed through a read callback with a progress callback, it runs Python
    code every few hundred steps, where the interpreter hands the GIL to a waiting thread.
    Returns None if `stop()` turned true (the parse is abandoned).
    """

    def read(offset: int, _point: Any) -> bytes:
        return data[offset : offset + _CHUNK]

    def progress(_offset: int, _has_error: bool) -> bool:
        return stop()

    try:
        return cast("Tree | None", _parser(language).parse(read, progress_callback=progress))
    except ValueError:  # tree-sitter's "Parsing failed": the progress callback stopped it
        if stop():
            return None
        raise


def _reparse(language: str, before: Tree, after: bytes, edits: Sequence[ByteEdit]) -> Tree:
    edited = before.copy()
    for edit in sorted(edits, key=lambda e: e.start_byte, reverse=True):
        edited.edit(
            start_byte=edit.start_byte,
            old_end_byte=edit.old_end_byte,
            new_end_byte=edit.new_end_byte,
            start_point=edit.start_point,
            old_end_point=edit.old_end_point,
            new_end_point=edit.new_end_point,
        )
    return cast("Tree", _parser(language).parse(after, edited))


def _error_nodes(tree: Tree) -> list[Node]:
    found: list[Node] = []
    stack = [tree.root_node]
    while stack and len(found) < _MAX_COLLECTED:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(node)
            continue
        stack.extend(reversed([child for child in node.children if child.has_error]))
    return found


def _text(node: Node, data: bytes) -> bytes:
    """The source of `node`, cut from `data` (the text its tree was parsed from)."""
    return data[node.start_byte : node.end_byte]


def _signature(node: Node, data: bytes) -> tuple[str, str]:
    if node.is_missing:
        return "missing", node.type
    return "error", _text(node, data)[:200].decode("utf-8", "replace")


def _describe(node: Node, data: bytes, at: int | None = None) -> SyntaxIssue:
    """The issue for error `node`; `at` (a byte offset inside it) says where to point
    instead of its start: the text shown then runs from there to the end of that line."""
    start = node.start_byte if at is None else at
    end = node.end_byte if at is None or node.is_missing else len(data)
    window = data[start : min(end, start + 4096)]
    start += len(window) - len(window.lstrip())  # point at the text, not the blanks before it
    line_start = data.rfind(b"\n", 0, start) + 1
    chars = len(data[line_start:start].decode("utf-8", "replace"))
    if node.is_missing:
        message = f"missing `{node.type}`"
    else:
        text = data[start : min(end, start + 8 * _SNIPPET_CHARS)].decode("utf-8", "replace")
        text = text.strip()
        first = text.splitlines()[0] if text else ""
        if len(first) > _SNIPPET_CHARS:
            first = first[:_SNIPPET_CHARS] + "…"
        message = f"syntax error at `{first}`" if first else "syntax error"
    row = node.start_point[0] + data.count(b"\n", node.start_byte, start)
    return SyntaxIssue(row + 1, chars + 1, message)


def edited_ranges(edits: Sequence[ByteEdit]) -> list[tuple[int, int]]:
    """Where the new text of each edit lies in the text after all of them (byte ranges)."""
    ranges: list[tuple[int, int]] = []
    shift = 0
    for edit in sorted(edits, key=lambda e: e.start_byte):
        ranges.append((edit.start_byte + shift, edit.new_end_byte + shift))
        shift += edit.new_end_byte - edit.old_end_byte
    return ranges


def _distance(node: Node, ranges: Sequence[tuple[int, int]]) -> int:
    """How many bytes lie between `node` and the nearest edited range (0: they touch)."""
    gaps = [max(start - node.end_byte, node.start_byte - end, 0) for start, end in ranges]
    return min(gaps, default=0)


def _pinpoint(node: Node, ranges: Sequence[tuple[int, int]], data: bytes) -> int | None:
    """Where to point for an error node that reaches over an edit from lines before it
    (tree-sitter's recovery can wrap everything from far above into one ERROR): the start
    of the first node inside it on the line where the nearest edit starts. None: its own
    start is right."""
    inside = [start for start, end in ranges if node.start_byte <= end and start <= node.end_byte]
    if not inside:
        return None
    line_start = data.rfind(b"\n", 0, min(inside)) + 1
    if node.start_byte >= line_start:
        return None
    current = node
    while True:
        after = [child for child in current.children if child.end_byte > line_start]
        if not after:
            return max(line_start, current.start_byte)
        if after[0].start_byte >= line_start:
            return int(after[0].start_byte)
        current = after[0]


def _new_errors(
    before: tuple[Tree, bytes],
    after: tuple[Tree, bytes],
    report: SyntaxReport,
    hidden: HiddenLines = _none_hidden,
    ranges: Sequence[tuple[int, int]] = (),
) -> None:
    """Errors of the `after` (tree, text) that the `before` one does not have, nearest the
    edited `ranges` first, leaving out those reported on a line `hidden` says is not
    shown."""
    (before_tree, before_data), (after_tree, data) = before, after
    if not after_tree.root_node.has_error:
        return
    old = Counter(_signature(node, before_data) for node in _error_nodes(before_tree))
    found: list[tuple[int, int, SyntaxIssue]] = []
    for node in _error_nodes(after_tree):
        signature = _signature(node, data)
        if old[signature]:
            old[signature] -= 1
            continue
        at = _pinpoint(node, ranges, data)
        issue = _describe(node, data, at)
        if hidden(issue.line) or hidden(node.start_point[0] + 1):
            continue
        found.append((_distance(node, ranges), node.start_byte if at is None else at, issue))
    found.sort(key=lambda item: item[:2])
    report.new_error_count += len(found)
    report.new_errors += [issue for _, _, issue in found[:MAX_LISTED]]


def _in_free_text(node: Node) -> bool:
    current: Node | None = node
    for _ in range(4):
        if current is None:
            return False
        if current.is_error or _FREE_TEXT.search(current.type):
            return True
        current = current.parent
    return False


def _split_token(tree: Tree, offset: int, size: int) -> Node | None:
    """The token (leaf) that `offset` falls strictly inside, if any."""
    if offset <= 0 or offset >= size:
        return None
    node = tree.root_node.descendant_for_byte_range(offset - 1, offset + 1)
    if node is None or node.child_count or not node.start_byte < offset < node.end_byte:
        return None
    if tree.root_node.has_error and _inside_error(node):
        return None
    return None if _in_free_text(node) else node


def _inside_error(node: Node) -> bool:
    current: Node | None = node
    while current is not None:
        if current.is_error:
            return True
        current = current.parent
    return False


def check(
    language: str,
    before: bytes,
    after: bytes,
    edits: Sequence[ByteEdit],
    boundaries: Sequence[tuple[int, str, int]] = (),
    cache: TreeCache = CACHE,
    *,
    hidden_before: HiddenLines = _none_hidden,
    hidden_after: HiddenLines = _none_hidden,
) -> SyntaxReport:
    """Check the edit that turned `before` into `after` (`edits` describes it).

    `boundaries` are (edit number, "start" or "end", byte offset in `before`) of exact-match
    edits, checked for splitting a token. `hidden_before` and `hidden_after` say which lines
    (from 1) of each text are not shown (a private key's): no error that starts on one and
    no token on one is reported, so what they hold shows nowhere. Blocking: run it in a
    worker thread.
    """
    report = SyntaxReport(language)
    before_tree = _parse(language, before, cache)
    after_tree = _reparse(language, before_tree, after, edits)
    cache.put(cache.key(language, after), after_tree)
    ranges = edited_ranges(edits)
    _new_errors((before_tree, before), (after_tree, after), report, hidden_after, ranges)
    if language not in PROSE:
        for edit, boundary, offset in boundaries:
            token = _split_token(before_tree, offset, len(before))
            first, last = (token.start_point[0], token.end_point[0]) if token else (0, -1)
            if token is not None and not any(map(hidden_before, range(first + 1, last + 2))):
                text = _text(token, before).decode("utf-8", "replace")
                report.splits.append(NodeSplit(edit, boundary, token.type, text))
    return report


__all__ = [
    "CACHE",
    "CACHE_SIZE",
    "MAX_LISTED",
    "MAX_SYNTAX_BYTES",
    "ByteEdit",
    "NodeSplit",
    "SyntaxIssue",
    "SyntaxReport",
    "TreeCache",
    "check",
    "edited_ranges",
    "parse_politely",
]
