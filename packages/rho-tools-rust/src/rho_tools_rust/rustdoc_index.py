"""The index of the local standard library documentation, and query resolution against it.

The index lists every item of `std`, `core` and `alloc` as their `all.html` pages link them
(`option/enum.Option.html` → `std::option::Option`, an enum). A query only ever selects
entries of this index; no path is built from the query, so a hostile query resolves to
nothing rather than to a file outside the documentation.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rho_kernel import open_regular
from rho_tools_rust.diagnostics import collector_paused

CRATES = ("std", "core", "alloc")
#: Preferred kinds first when a name is ambiguous (`Display` → the trait, not a struct).
KIND_RANK = {
    kind: rank
    for rank, kind in enumerate(
        [
            "primitive",
            "trait",
            "enum",
            "struct",
            "union",
            "type",
            "traitalias",
            "macro",
            "fn",
            "constant",
            "static",
            "derive",
            "attr",
            "keyword",
        ]
    )
}
#: Kinds a `Type::member` query can take its page from.
TYPE_KINDS = frozenset({"primitive", "trait", "enum", "struct", "union", "type"})
_LINK = re.compile(r'<li><a href="([^"<>]+)">([^<>]+)</a></li>')
_HREF = re.compile(r"(?:[a-z0-9_]+/)*([a-z]+)\.([A-Za-z0-9_]+)\.html")
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")
MAX_QUERY_CHARS = 200


@dataclass(frozen=True)
class Entry:
    """One documented item: `relpath` (`std/option/enum.Option.html`), path, name and kind."""

    relpath: str
    path: tuple[str, ...]
    kind: str

    @property
    def name(self) -> str:
        """The item's own name (the last path segment)."""
        return self.path[-1]


@dataclass
class DocIndex:
    """Every item of the indexed crates, by name."""

    by_name: dict[str, list[Entry]] = field(default_factory=lambda: defaultdict(list))
    by_folded_name: dict[str, list[Entry]] = field(default_factory=lambda: defaultdict(list))

    def add(self, entry: Entry) -> None:
        """Index `entry` under its name (and its lower-case name)."""
        self.by_name[entry.name].append(entry)
        self.by_folded_name[entry.name.lower()].append(entry)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self.by_name.values())


@dataclass(frozen=True)
class Target:
    """What a query resolved to: candidate items (best first) and, for `Type::x`, the member."""

    entries: tuple[Entry, ...]
    member: str | None = None


def read_crate_items(docs_root: Path, crate: str) -> list[Entry]:
    """The items `{crate}/all.html` links to (missing or unreadable page: none)."""
    try:
        with open_regular(docs_root / crate / "all.html") as handle:  # never a FIFO's wait
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    entries = []
    for href, label in _LINK.findall(text):
        match = _HREF.fullmatch(href)
        if match is None or match.group(1) not in KIND_RANK:
            continue
        segments = tuple(label.strip().split("::"))
        if not all(_PATH.fullmatch(segment) for segment in segments):
            continue
        entries.append(Entry(f"{crate}/{href}", (crate, *segments), match.group(1)))
    return entries


def build_index(docs_root: Path) -> DocIndex:
    """The index of `std`, `core` and `alloc` under `docs_root` (the `.../rust/html` folder)."""
    index = DocIndex()
    with collector_paused():  # tens of thousands of entries, every one kept
        for crate in CRATES:
            for entry in read_crate_items(docs_root, crate):
                index.add(entry)
    return index


def _normalise(query: str) -> tuple[tuple[str, ...], bool] | None:
    text = query.strip()
    if not text or len(text) > MAX_QUERY_CHARS:
        return None
    text = text.removesuffix("()")
    is_macro = text.endswith("!")
    text = text.removesuffix("!")
    for _ in range(4):  # generic arguments are not part of a name: Vec<T> → Vec
        text = re.sub(r"<[^<>]*>", "", text)
    if not _PATH.fullmatch(text):
        return None
    return tuple(text.split("::")), is_macro


def _within(modules: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """Whether `wanted` appears in `modules` in order (gaps allowed: re-exports)."""
    position = iter(modules)
    return all(segment in position for segment in wanted)


def _rank(entry: Entry, segments: tuple[str, ...]) -> tuple[int, int, int, int, str]:
    exact = entry.path[-len(segments) :] == segments
    return (
        0 if exact else 1,
        CRATES.index(entry.path[0]),
        KIND_RANK[entry.kind],
        len(entry.path),
        "::".join(entry.path),
    )


def find_items(
    index: DocIndex, segments: tuple[str, ...], kinds: frozenset[str] | None
) -> list[Entry]:
    """Entries named `segments[-1]` whose path contains the other segments, best first."""
    name = segments[-1]
    candidates = index.by_name.get(name) or index.by_folded_name.get(name.lower()) or []
    qualifiers = segments[:-1]
    crate = qualifiers[0] if qualifiers and qualifiers[0] in CRATES else None
    if crate is not None:
        qualifiers = qualifiers[1:]
    found = [
        entry
        for entry in candidates
        if (kinds is None or entry.kind in kinds)
        and (crate is None or entry.path[0] == crate)
        and _within(entry.path[1:-1], qualifiers)
    ]
    return sorted(found, key=lambda entry: _rank(entry, segments))


def resolve(index: DocIndex, query: str) -> Target | None:
    """The items `query` names (`Vec`, `std::fmt::Display`, `println!`, `Option::map`), or None."""
    parsed = _normalise(query)
    if parsed is None:
        return None
    segments, is_macro = parsed
    if is_macro:
        found = find_items(index, segments, frozenset({"macro"}))
        return Target(tuple(found)) if found else None
    found = find_items(index, segments, None)
    if found:
        return Target(tuple(found))
    if len(segments) >= 2 and segments[:-1] not in {(crate,) for crate in CRATES}:
        owners = find_items(index, segments[:-1], TYPE_KINDS)
        if owners:
            return Target(tuple(owners), member=segments[-1])
    return None


__all__ = [
    "CRATES",
    "DocIndex",
    "Entry",
    "Target",
    "build_index",
    "find_items",
    "read_crate_items",
    "resolve",
]
