"""Names in `[extensions]`: the manifest's `name` (read from the source, never run) and the
discovery name both work; a name that could mean two extensions is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_ext_js.config import ExtensionPermissions, ExtensionsConfig
from rho_ext_js.discovery import ExtensionSource, discover_all
from rho_ext_js.naming import Naming, manifest_name


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _source(tmp_path: Path, file: str, text: str) -> ExtensionSource:
    entry = _write(tmp_path / file, text)
    return ExtensionSource(entry.stem, entry, entry.parent, "user", folder=False)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('export default { name: "rust-docs", version: "1" };', "rust-docs"),
        ("export default { 'name': 'rust-docs' } satisfies RhoExtension;", "rust-docs"),
        ('export default ({ name: "x" } as const);', "x"),
        ('const manifest = { tools: [], name: "held" };\nexport default manifest;', "held"),
        (
            '/// <reference path="../types/rho.d.ts" />\ninterface A {}\nexport default {\n  name: "late",\n};',
            "late",
        ),
        ('export default { name: "a\\u0041" };', None),  # an escape: not plain
        ("export default { name: `tpl` };", None),
        ('export default { name: "a", ...other };', None),  # a spread may set it
        ('export default { get name() { return "g"; } };', None),
        ('export default { name: "a", name: "b" };', None),
        ('export default { ["name"]: "c" };', None),
        ('export default { name: prefix + "x" };', None),
        ('let m = { name: "mutable" };\nexport default m;', None),
        ('export const name = "n";', None),  # no default export
        ("export default { name: ", None),  # broken source
    ],
)
def test_the_manifest_name_is_read_from_a_literal_only(
    tmp_path: Path, text: str, name: str | None
) -> None:
    assert manifest_name(_source(tmp_path, "ext.ts", text)) == name


def test_a_javascript_entry_and_a_missing_one(tmp_path: Path) -> None:
    source = _source(tmp_path, "plain.js", 'export default { name: "from-js" };\n')
    assert manifest_name(source) == "from-js"
    source.entry.unlink()
    assert manifest_name(source) is None


def _naming(
    tmp_path: Path, extensions: dict[str, str]
) -> tuple[Naming, dict[str, ExtensionSource]]:
    home, root = tmp_path / "home", tmp_path / "project"
    for path, name in extensions.items():
        level_dir = root if path.startswith("project:") else home
        _write(
            level_dir / ".rho/extensions" / path.removeprefix("project:"),
            f'export default {{ name: "{name}" }};\n',
        )
    sources = discover_all(root, home)
    by = {f"{s.level}:{s.name}": s for s in sources}
    return Naming.read(sources), by


def test_the_books_config_keys_by_manifest_name(tmp_path: Path) -> None:
    naming, by = _naming(tmp_path, {"rust_docs/mod.ts": "rust-docs", "hello.ts": "hello"})
    rust_docs = by["user:rust_docs"]
    config = ExtensionsConfig(
        enabled=["rust-docs"],
        per_extension={"rust-docs": ExtensionPermissions(max_memory_mb=128, network=True)},
    )
    assert naming.selected(rust_docs, config) and not naming.selected(by["user:hello"], config)
    granted = naming.permissions(rust_docs, config)
    assert (granted.max_memory_mb, granted.network) == (128, True)
    assert naming.permissions(by["user:hello"], config).network is None
    assert not naming.selected(rust_docs, ExtensionsConfig(disabled=["rust-docs"]))
    assert naming.selected(rust_docs, ExtensionsConfig(enabled=["rust_docs"]))  # discovery name
    assert naming.ambiguities(config) == []


def test_the_discovery_name_entry_wins_over_the_manifest_name_entry(tmp_path: Path) -> None:
    naming, by = _naming(tmp_path, {"rust_docs/mod.ts": "rust-docs"})
    config = ExtensionsConfig(
        defaults=ExtensionPermissions(max_memory_mb=32, commands=True),
        per_extension={
            "rust_docs": ExtensionPermissions(max_memory_mb=256),
            "rust-docs": ExtensionPermissions(max_memory_mb=128, network=True),
        },
    )
    merged = naming.permissions(by["user:rust_docs"], config)
    assert (merged.max_memory_mb, merged.network, merged.commands) == (256, True, True)


def test_a_discovery_name_that_is_another_manifest_name_is_ambiguous(tmp_path: Path) -> None:
    naming, by = _naming(tmp_path, {"rust-docs.ts": "docs-one", "rust_docs/mod.ts": "rust-docs"})
    file, folder = by["user:rust-docs"], by["user:rust_docs"]
    config = ExtensionsConfig(
        enabled=["rust-docs"],
        per_extension={"rust-docs": ExtensionPermissions(network=True)},
    )
    assert naming.selected(file, config) and not naming.selected(folder, config)
    assert naming.permissions(file, config).network is True
    assert naming.permissions(folder, config).network is None
    stop = ExtensionsConfig(disabled=["rust-docs"])
    assert not naming.selected(file, stop) and not naming.selected(folder, stop)
    messages = naming.ambiguities(config)
    assert len(messages) == 2
    assert messages[0] == (
        '[extensions] enabled "rust-docs" is ambiguous: it is the name of the extension '
        '"rust-docs" and the manifest name of rust_docs; it applies to "rust-docs" only '
        "(use the folder or file name to be explicit)"
    )
    assert "per_extension" in messages[1]
    assert "applies to all of them" in naming.ambiguities(stop)[0]


def test_a_manifest_name_of_two_extensions_grants_nothing_and_stops_both(
    tmp_path: Path,
) -> None:
    # A project's extension that claims the name of the user's gets none of its grants.
    naming, by = _naming(
        tmp_path, {"rust_docs/mod.ts": "rust-docs", "project:evil.ts": "rust-docs"}
    )
    mine, theirs = by["user:rust_docs"], by["project:evil"]
    config = ExtensionsConfig(per_extension={"rust-docs": ExtensionPermissions(network=True)})
    assert naming.permissions(mine, config).network is None
    assert naming.permissions(theirs, config).network is None
    assert not naming.selected(mine, ExtensionsConfig(enabled=["rust-docs"]))
    stop = ExtensionsConfig(disabled=["rust-docs"])
    assert not naming.selected(mine, stop) and not naming.selected(theirs, stop)
    (message,) = naming.ambiguities(config)
    assert message == (
        '[extensions] per_extension "rust-docs" is ambiguous: it is the manifest name of '
        "evil, rust_docs; it applies to none of them (use the folder or file name instead)"
    )


def test_an_override_is_named_by_its_own_manifest(tmp_path: Path) -> None:
    # The project's `tool` replaces the user's; each answers to its own manifest name.
    naming, by = _naming(tmp_path, {"tool.ts": "mine", "project:tool.ts": "theirs"})
    config = ExtensionsConfig(per_extension={"mine": ExtensionPermissions(network=True)})
    assert naming.permissions(by["user:tool"], config).network is True
    assert naming.permissions(by["project:tool"], config).network is None
    assert naming.ambiguities(config) == []
