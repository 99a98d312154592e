"""Which extension a name in `[extensions]` (`enabled`, `disabled`, `per_extension`) means.

An extension has two names: its discovery name (the file's stem or the folder's name,
`rust_docs`) and its manifest's `name` (`rust-docs`). Both are accepted, so that a config
written for the original rho (which keys by the manifest name) keeps working. The config is
applied before the extension's code runs (its permissions and limits are those of the
isolate it starts in), so the manifest name is read from the source, never by running it:
the `name` of an `export default { name: "..." }` object literal (or of a top-level
`const` it exports), a plain string. A manifest that builds its name otherwise answers to
its discovery name only.

A name means the extension of that discovery name if there is one, else the extension
whose manifest has that name. It is ambiguous when it is one extension's discovery name
and another's manifest name, or the manifest name of several: the discovery name wins,
and a manifest name shared by several extensions means none of them — except in
`disabled`, where a name stops every extension it may mean. Each ambiguity is reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rho_ext_js.config import ExtensionPermissions, ExtensionsConfig
from rho_ext_js.discovery import ExtensionSource
from rho_kernel import FileTooLargeError, read_regular_file

if TYPE_CHECKING:
    from tree_sitter import Node

#: An entry larger than this is not read for its name (the bundler refuses it anyway).
MAX_ENTRY_BYTES = 1024 * 1024
_WRAPPERS = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "type_assertion"}
)


def manifest_name(source: ExtensionSource) -> str | None:
    """The manifest `name` written in the entry's `export default` object, or None when it
    is not a plain string there (or the entry cannot be read or parsed)."""
    from rho_ext_js.typescript import thread_parser

    try:
        data = read_regular_file(source.entry, limit=MAX_ENTRY_BYTES)
    except (OSError, FileTooLargeError):
        return None
    language = "typescript" if source.entry.suffix in (".ts", ".mts") else "javascript"
    root = thread_parser(language).parse(data).root_node
    manifest = _default_export(root)
    return _name_of(manifest) if manifest is not None else None


def _unwrap(node: Node | None) -> Node | None:
    while node is not None and node.type in _WRAPPERS:
        node = node.named_children[0] if node.named_children else None
    return node


def _default_export(root: Node) -> Node | None:
    """The object literal the module exports as default (directly or through a top-level
    `const`), if it is one."""
    value: Node | None = None
    for statement in root.named_children:
        if statement.type == "export_statement" and any(
            child.type == "default" for child in statement.children
        ):
            value = _unwrap(statement.child_by_field_name("value"))
    if value is not None and value.type == "identifier":
        value = _constant(root, _text(value))
    return value if value is not None and value.type == "object" else None


def _constant(root: Node, name: str) -> Node | None:
    for statement in root.named_children:
        if statement.type != "lexical_declaration" or _text(statement.children[0]) != "const":
            continue
        for declarator in statement.named_children:
            target = declarator.child_by_field_name("name")
            if target is not None and _text(target) == name:
                return _unwrap(declarator.child_by_field_name("value"))
    return None


def _name_of(manifest: Node) -> str | None:
    """The `name` of the object literal: one plain-string `name` property, and nothing
    (a spread, a getter, a computed key) that could set it otherwise."""
    found: list[str | None] = []
    for member in manifest.named_children:
        if member.type == "spread_element":
            return None
        key = member.child_by_field_name("key") or member.child_by_field_name("name")
        if key is None:
            continue
        if key.type == "computed_property_name":
            return None
        if _key_text(key) == "name":
            found.append(_plain_string(member.child_by_field_name("value")))
    return found[0] if len(found) == 1 else None


def _key_text(key: Node) -> str | None:
    if key.type in ("property_identifier", "identifier"):
        return _text(key)
    return _plain_string(key)


def _plain_string(node: Node | None) -> str | None:
    """The text of a string literal without escapes (None for anything else)."""
    if node is None or node.type != "string":
        return None
    parts = node.named_children
    if any(part.type != "string_fragment" for part in parts):
        return None
    return "".join(_text(part) for part in parts)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


@dataclass
class Naming:
    """The names of the discovered extensions: what each config name means."""

    #: Each source's manifest name as written (None: not a plain string).
    manifest: dict[ExtensionSource, str | None] = field(default_factory=dict)

    @classmethod
    def read(cls, sources: Iterable[ExtensionSource]) -> Naming:
        """The names of `sources` (reads each entry; no code runs)."""
        return cls({source: manifest_name(source) for source in sources})

    def _discovery(self) -> set[str]:
        return {source.name for source in self.manifest}

    def _by_manifest(self, key: str) -> set[str]:
        """The discovery names of the extensions whose manifest is named `key`."""
        return {source.name for source, name in self.manifest.items() if name == key}

    def means(self, key: str, source: ExtensionSource, *, stopping: bool = False) -> bool:
        """Whether the config name `key` means `source`; `stopping` (for `disabled`) makes
        an ambiguous name mean every extension it may."""
        if source.name == key:
            return True
        if self.manifest.get(source) != key:
            return False
        if stopping:
            return True
        return key not in self._discovery() and len(self._by_manifest(key)) == 1

    def selected(self, source: ExtensionSource, config: ExtensionsConfig) -> bool:
        """Whether `[extensions] enabled/disabled` let `source` load."""
        if config.enabled and not any(self.means(key, source) for key in config.enabled):
            return False
        return not any(self.means(key, source, stopping=True) for key in config.disabled)

    def permissions(
        self, source: ExtensionSource, config: ExtensionsConfig
    ) -> ExtensionPermissions:
        """`source`'s permissions: the defaults, under its `per_extension` entry by manifest
        name, under its entry by discovery name (field by field)."""
        merged: dict[str, Any] = config.defaults.model_dump()
        keys = sorted(config.per_extension, key=lambda key: key == source.name)
        for key in keys:
            if self.means(key, source):
                merged.update(config.per_extension[key].model_dump(exclude_none=True))
        return ExtensionPermissions.model_validate(merged)

    def ambiguities(self, config: ExtensionsConfig) -> list[str]:
        """A message for each name in `[extensions]` that could mean several extensions."""
        messages = []
        for where, keys in (
            ("enabled", config.enabled),
            ("disabled", config.disabled),
            ("per_extension", list(config.per_extension)),
        ):
            for key in dict.fromkeys(keys):
                message = self._ambiguity(where, key)
                if message is not None:
                    messages.append(message)
        return messages

    def _ambiguity(self, where: str, key: str) -> str | None:
        by_manifest = self._by_manifest(key) - {key}
        if key in self._discovery() and by_manifest:
            others = ", ".join(sorted(by_manifest))
            applies = "all of them" if where == "disabled" else f'"{key}" only'
            return (
                f'[extensions] {where} "{key}" is ambiguous: it is the name of the extension '
                f'"{key}" and the manifest name of {others}; it applies to {applies} '
                "(use the folder or file name to be explicit)"
            )
        if key not in self._discovery() and len(by_manifest) > 1:
            listed = ", ".join(sorted(by_manifest))
            applies = "all of them" if where == "disabled" else "none of them"
            return (
                f'[extensions] {where} "{key}" is ambiguous: it is the manifest name of '
                f"{listed}; it applies to {applies} (use the folder or file name instead)"
            )
        return None


__all__ = ["MAX_ENTRY_BYTES", "Naming", "manifest_name"]
