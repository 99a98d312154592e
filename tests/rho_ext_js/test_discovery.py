"""Finding extensions: single files and folders, user and project, overrides, the
enabled/disabled lists, and what is never picked up (hidden names, links, other files)."""

from __future__ import annotations

from pathlib import Path

from rho_ext_js.config import ExtensionsConfig
from rho_ext_js.discovery import discover, discover_all, selected, stamp


def _write(path: Path, text: str = "export default { name: 'x' };\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_files_and_folders_of_both_levels_project_winning(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    _write(home / ".rho/extensions/hello.ts")
    _write(home / ".rho/extensions/shared.js")
    _write(home / ".rho/extensions/docs/mod.ts")
    _write(home / ".rho/extensions/docs/parser.ts")
    _write(root / ".rho/extensions/shared.ts")
    _write(root / ".rho/extensions/tool/mod.js")
    found = discover(root, home)
    assert sorted(found) == ["docs", "hello", "shared", "tool"]
    assert (found["shared"].level, found["shared"].entry.suffix) == ("project", ".ts")
    docs = found["docs"]
    assert docs.folder and docs.entry.name == "mod.ts" and docs.root == docs.entry.parent
    assert [p.name for p in docs.files()] == ["mod.ts", "parser.ts"]
    hello = found["hello"]
    assert not hello.folder and hello.root == home / ".rho/extensions"
    assert [(s.name, s.level) for s in discover_all(root, home)].count(("shared", "user")) == 1


def test_hidden_linked_and_other_entries_are_not_extensions(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    directory = root / ".rho/extensions"
    _write(directory / ".secret.ts")
    _write(directory / "notes.md")
    _write(directory / "empty/helper.ts")  # a folder without mod.ts
    outside = _write(tmp_path / "elsewhere.ts")
    (directory / "linked.ts").symlink_to(outside)
    (directory / "linkdir").symlink_to(tmp_path)
    _write(directory / "real.ts")
    assert sorted(discover(root, home)) == ["real"]


def test_missing_folders_mean_no_extensions(tmp_path: Path) -> None:
    assert discover(tmp_path / "nowhere", tmp_path / "nohome") == {}


def test_the_enabled_list_keeps_and_the_disabled_list_drops() -> None:
    everything = ExtensionsConfig()
    assert selected("a", everything)
    only_a = ExtensionsConfig(enabled=["a"], disabled=[])
    assert selected("a", only_a) and not selected("b", only_a)
    not_b = ExtensionsConfig(enabled=[], disabled=["b"])
    assert selected("a", not_b) and not selected("b", not_b)
    assert not selected("a", ExtensionsConfig(enabled=["a"], disabled=["a"]))


def test_a_stamp_changes_when_any_file_changes(tmp_path: Path) -> None:
    main = _write(tmp_path / "mod.ts")
    helper = _write(tmp_path / "helper.ts", "export const x = 1;\n")
    before = stamp([main, helper])
    helper.write_text("export const x = 22;\n")
    assert stamp([main, helper]) != before
    assert stamp([main, tmp_path / "gone.ts"]) == stamp([main])


def test_declarations_maps_data_modules_and_backups_are_never_entry_points(
    tmp_path: Path,
) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    directory = home / ".rho/extensions"
    for name in (
        "rho.d.ts",  # what `python -m rho_ext_js.typings --copy` writes
        "globals.d.mts",
        "other.d.cts",
        "real.ts.map",
        "real.js.map",
        "settings.json",
        "real.ts~",
        "#real.ts#",
        "real.ts.bak",
        "real.ts.orig",
        "real.ts.swp",
        ".#real.ts",
        "package.json",
        "tsconfig.json",
    ):
        _write(directory / name)
    _write(directory / "node_modules/dep/mod.ts")  # a dependency folder, never an extension
    _write(directory / "types/mod.d.ts")  # a folder of declarations only
    _write(directory / "real.ts")
    _write(directory / "tool/mod.ts")
    assert sorted(discover(root, home)) == ["real", "tool"]


def test_a_folder_whose_entry_is_only_declarations_is_not_an_extension(tmp_path: Path) -> None:
    directory = tmp_path / "home/.rho/extensions"
    _write(directory / "decl/mod.d.ts")
    _write(directory / "decl/helper.ts")
    assert discover(tmp_path / "project", tmp_path / "home") == {}
