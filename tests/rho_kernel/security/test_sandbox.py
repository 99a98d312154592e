"""SandboxRoot: canonical roots, validate, validate_for_write, and every hostile path we know."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.security import PathNotFoundError, SandboxError, SandboxRoot

# Every case holds through directory fds and with the path-check fallback alike.
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A project dir with some content and a sibling "outside" dir with a secret."""
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.rs").write_text("fn main() {}\n")
    (project / "README.md").write_text("hi\n")
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    return project, outside


@pytest.fixture
def root(layout: tuple[Path, Path]) -> SandboxRoot:
    return SandboxRoot(layout[0])


# ── construction ────────────────────────────────────────────────────────────


def test_root_is_canonicalised(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    sandbox = SandboxRoot(tmp_path / "alias" / ".." / "alias")
    assert sandbox.path == real.resolve()


def test_root_must_exist(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="cannot be used"):
        SandboxRoot(tmp_path / "missing")


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "file.txt"
    file.write_text("x")
    with pytest.raises(SandboxError, match="not a directory"):
        SandboxRoot(file)


# ── validate: allowed ───────────────────────────────────────────────────────


def test_validate_relative_path(root: SandboxRoot) -> None:
    assert root.validate("src/main.rs") == root.path / "src" / "main.rs"


def test_validate_root_itself(root: SandboxRoot) -> None:
    assert root.validate(".") == root.path
    assert root.validate(root.path) == root.path


def test_validate_absolute_path_inside(root: SandboxRoot) -> None:
    assert root.validate(str(root.path / "README.md")) == root.path / "README.md"


def test_validate_dotdot_that_stays_inside(root: SandboxRoot) -> None:
    assert root.validate("src/../README.md") == root.path / "README.md"


def test_validate_symlink_inside_resolves_to_target(root: SandboxRoot) -> None:
    (root.path / "link.rs").symlink_to(root.path / "src" / "main.rs")
    assert root.validate("link.rs") == root.path / "src" / "main.rs"


def test_validate_accepts_path_objects(root: SandboxRoot) -> None:
    assert root.validate(Path("src")) == root.path / "src"


# ── validate: hostile ───────────────────────────────────────────────────────


def test_validate_rejects_dotdot_escape(root: SandboxRoot, layout: tuple[Path, Path]) -> None:
    with pytest.raises(SandboxError) as info:
        root.validate("../outside/secret.txt")
    message = str(info.value)
    assert "'../outside/secret.txt'" in message
    assert "outside the project sandbox" in message
    assert str(root.path) in message
    assert not isinstance(info.value, PathNotFoundError)


def test_validate_rejects_deep_dotdot_escape(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("src/../../outside/secret.txt")


def test_validate_rejects_absolute_path_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate(str(layout[1] / "secret.txt"))
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("/")


def test_validate_rejects_symlinked_file_pointing_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "innocent.txt").symlink_to(layout[1] / "secret.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("innocent.txt")


def test_validate_rejects_symlinked_parent_dir_pointing_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "vendor").symlink_to(layout[1], target_is_directory=True)
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("vendor/secret.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("vendor")


def test_validate_rejects_relative_symlink_climbing_out(root: SandboxRoot) -> None:
    (root.path / "src" / "up").symlink_to("../../outside")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("src/up/secret.txt")


def test_validate_symlink_loop_errors_cleanly(root: SandboxRoot) -> None:
    (root.path / "a").symlink_to(root.path / "b")
    (root.path / "b").symlink_to(root.path / "a")
    with pytest.raises(SandboxError, match="cannot be resolved") as info:
        root.validate("a")
    assert not isinstance(info.value, PathNotFoundError)
    with pytest.raises(SandboxError):
        root.validate("a/child.txt")


def test_validate_self_loop_errors_cleanly(root: SandboxRoot) -> None:
    (root.path / "self").symlink_to("self")
    with pytest.raises(SandboxError, match="cannot be resolved"):
        root.validate("self")


@pytest.mark.parametrize("bad", ["", "   "])
def test_validate_rejects_empty_path(root: SandboxRoot, bad: str) -> None:
    with pytest.raises(SandboxError, match="empty"):
        root.validate(bad)


def test_validate_rejects_nul_byte(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="NUL"):
        root.validate("README.md\0.txt")


def test_validate_missing_inside_is_not_found(root: SandboxRoot) -> None:
    with pytest.raises(PathNotFoundError, match="does not exist") as info:
        root.validate("nope.txt")
    assert "'nope.txt'" in str(info.value)
    assert str(root.path) in str(info.value)


def test_validate_missing_below_a_file_is_not_found(root: SandboxRoot) -> None:
    with pytest.raises(PathNotFoundError):
        root.validate("README.md/child")


def test_validate_missing_outside_is_reported_as_outside(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox") as info:
        root.validate("../does-not-exist")
    assert not isinstance(info.value, PathNotFoundError)


def test_validate_dangling_symlink_pointing_outside_is_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "dangling").symlink_to(layout[1] / "nothing-here")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate("dangling")


# ── validate_for_write ──────────────────────────────────────────────────────


def test_write_new_file_in_existing_dir(root: SandboxRoot) -> None:
    assert root.validate_for_write("src/new.rs") == root.path / "src" / "new.rs"


def test_write_new_nested_dirs(root: SandboxRoot) -> None:
    assert root.validate_for_write("a/b/c.txt") == root.path / "a" / "b" / "c.txt"


def test_write_existing_file(root: SandboxRoot) -> None:
    assert root.validate_for_write("README.md") == root.path / "README.md"


def test_write_absolute_inside(root: SandboxRoot) -> None:
    target = root.path / "new" / "x.txt"
    assert root.validate_for_write(str(target)) == target


def test_write_dotdot_in_existing_part_is_resolved(root: SandboxRoot) -> None:
    assert root.validate_for_write("src/../new.txt") == root.path / "new.txt"


def test_write_rejects_dotdot_in_missing_suffix(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match=r"'\.\.' below a directory that does not exist"):
        root.validate_for_write("new_dir/../../outside/x")
    # Even when it would land back inside, '..' after a missing component is refused.
    with pytest.raises(SandboxError):
        root.validate_for_write("new_dir/../inside.txt")


def test_write_rejects_dotdot_escape(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write("../escape.txt")


def test_write_rejects_absolute_outside(root: SandboxRoot, layout: tuple[Path, Path]) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write(str(layout[1] / "new.txt"))


def test_write_rejects_symlinked_parent_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "vendor").symlink_to(layout[1], target_is_directory=True)
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write("vendor/new.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write("vendor/deeper/new.txt")


def test_write_rejects_symlinked_file_outside(root: SandboxRoot, layout: tuple[Path, Path]) -> None:
    (root.path / "innocent.txt").symlink_to(layout[1] / "secret.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write("innocent.txt")


def test_write_rejects_dangling_symlink_pointing_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    # Writing through the link would create the file outside the sandbox.
    (root.path / "trap.txt").symlink_to(layout[1] / "created-by-write.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write("trap.txt")


def test_write_rejects_chained_dangling_symlinks_pointing_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "first").symlink_to("second")
    (root.path / "second").symlink_to(layout[1] / "new.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.validate_for_write("first")


def test_write_follows_dangling_symlink_inside(root: SandboxRoot) -> None:
    (root.path / "later.txt").symlink_to("src/later.txt")
    assert root.validate_for_write("later.txt") == root.path / "src" / "later.txt"


def test_write_symlink_loop_errors_cleanly(root: SandboxRoot) -> None:
    (root.path / "a").symlink_to(root.path / "b")
    (root.path / "b").symlink_to(root.path / "a")
    with pytest.raises(SandboxError, match="cannot be resolved"):
        root.validate_for_write("a")
    with pytest.raises(SandboxError, match="cannot be resolved"):
        root.validate_for_write("a/new.txt")


def test_write_rejects_empty_and_nul(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="empty"):
        root.validate_for_write("")
    with pytest.raises(SandboxError, match="NUL"):
        root.validate_for_write("a\0b")


def test_write_below_a_file_is_left_to_the_writer(root: SandboxRoot) -> None:
    # Not a sandbox matter: the path is inside; creating it will fail later.
    assert root.validate_for_write("README.md/x") == root.path / "README.md" / "x"


# ── relative ────────────────────────────────────────────────────────────────


def test_relative_display(root: SandboxRoot, layout: tuple[Path, Path]) -> None:
    assert root.relative(root.path / "src" / "main.rs") == "src/main.rs"
    assert root.relative(root.path) == "."
    outside = layout[1].resolve() / "secret.txt"
    assert root.relative(outside) == outside.as_posix()


def test_error_carries_path_and_root(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError) as info:
        root.validate("../x")
    assert info.value.path == "../x"
    assert info.value.root == root.path
