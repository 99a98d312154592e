"""The import contract: packs, the example plugin and `rho_kernel.testing` use only public modules.

A pack is a plugin a third party could have written, so it is held to exactly the rule a third
party is: it imports `rho_kernel`, `rho_kernel.testing` and the public submodules listed in
`PUBLIC_MODULES` (documented in docs/plugins.md, "The public API"), never another module under
`rho_kernel`. Every import is read with `ast` (inside functions and `if TYPE_CHECKING:` blocks
too); there are no exceptions, for rho's own packs either. A string that names an internal
module (`import_module("rho_kernel.x")`, a lazy export) counts as an import.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from public_modules import PUBLIC_MODULES

REPO = Path(__file__).resolve().parents[2]
KERNEL_SRC = REPO / "packages" / "rho-kernel" / "src" / "rho_kernel"

_ADVICE = (
    "import the name from a public module instead (rho_kernel, rho_kernel.testing, or a "
    "public submodule: {public}), or make it public: export it from rho_kernel (or a public "
    "submodule's __all__), give it a docstring and document it in docs/plugins.md"
)


@dataclass(frozen=True, order=True)
class Violation:
    """An import of an internal kernel module: where it is and what it imports."""

    path: str
    line: int
    module: str

    def describe(self) -> str:
        """The violation as one line a developer can act on."""
        public = ", ".join(sorted(PUBLIC_MODULES - {"rho_kernel", "rho_kernel.testing"}))
        return f"{self.path}:{self.line} imports internal module {self.module}: " + _ADVICE.format(
            public=public
        )


def _module_of(path: Path, kernel_src: Path) -> str | None:
    """The dotted name of a file inside the kernel's source tree, or None outside it."""
    try:
        parts = list(path.relative_to(kernel_src.parent).with_suffix("").parts)
    except ValueError:
        return None
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_submodule(module: str, kernel_src: Path) -> bool:
    """Whether `module` (dotted, under rho_kernel) is a module or package in the kernel."""
    base = kernel_src.parent.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _resolve_relative(node: ast.ImportFrom, file_module: str | None, is_package: bool) -> str:
    """The absolute module a relative `from . import` names, or "" when it cannot be known."""
    if file_module is None:
        return ""  # a relative import outside the kernel stays inside its own package
    parts = file_module.split(".")
    if not is_package:
        parts.pop()
    drop = node.level - 1
    if drop > len(parts):
        return ""
    parts = parts[: len(parts) - drop]
    return ".".join([*parts, node.module] if node.module else parts)


_MODULE_NAME = re.compile(r"rho_kernel(?:\.\w+)+")


def _imported_modules(
    tree: ast.AST, file_module: str | None, is_package: bool, kernel_src: Path
) -> Iterator[tuple[int, str]]:
    """Every (line, module) a file imports, with `from pkg import sub` naming `pkg.sub`.

    A string that is exactly a kernel module's name counts too: it is how `import_module`,
    `lazy_exports` and a `ToolDeclaration` import a module.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _MODULE_NAME.fullmatch(node.value) and _is_submodule(node.value, kernel_src):
                yield node.lineno, node.value
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve_relative(node, file_module, is_package)
            else:
                base = node.module or ""
            if not base:
                continue
            yield node.lineno, base
            if base == "rho_kernel" or base.startswith("rho_kernel."):
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    if alias.name != "*" and _is_submodule(candidate, kernel_src):
                        yield node.lineno, candidate


def _own_public_package(file_module: str | None) -> str | None:
    """The public kernel package a kernel file belongs to (its own submodules are its own)."""
    if file_module is None:
        return None
    owners = [
        public
        for public in PUBLIC_MODULES - {"rho_kernel"}
        if file_module == public or file_module.startswith(public + ".")
    ]
    return max(owners, key=len, default=None)


def find_violations(
    files: Iterable[Path], root: Path, kernel_src: Path = KERNEL_SRC
) -> list[Violation]:
    """The imports of internal `rho_kernel` modules in `files`, paths relative to `root`."""
    found: set[Violation] = set()
    for path in files:
        file_module = _module_of(path, kernel_src)
        own = _own_public_package(file_module)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module in _imported_modules(
            tree, file_module, path.name == "__init__.py", kernel_src
        ):
            if module != "rho_kernel" and not module.startswith("rho_kernel."):
                continue
            if module in PUBLIC_MODULES:
                continue
            if own is not None and module.startswith(own + "."):
                continue
            found.add(Violation(path.relative_to(root).as_posix(), line, module))
    return sorted(found)


def checked_files(repo: Path = REPO) -> list[Path]:
    """The files held to the contract: every pack's source, the examples, the test helpers."""
    packs = [
        src for src in sorted((repo / "packages").glob("*/src")) if src.parent.name != "rho-kernel"
    ]
    roots = [*packs, repo / "examples", repo / "packages/rho-kernel/src/rho_kernel/testing"]
    return sorted(
        path for root in roots for path in root.rglob("*.py") if ".venv" not in path.parts
    )


def test_packs_examples_and_testing_import_only_public_modules() -> None:
    violations = find_violations(checked_files(), REPO)
    assert not violations, "\n".join(violation.describe() for violation in violations)


def test_the_checked_files_cover_every_pack_the_examples_and_testing() -> None:
    files = {path.relative_to(REPO).as_posix() for path in checked_files()}
    for prefix in (
        "packages/rho-tools-fs/src/",
        "packages/rho-tools-rust/src/",
        "packages/rho-ext-js/src/",
        "packages/rho-memory/src/",
        "packages/rho-rpc/src/",
        "examples/rho-plugin-example/src/",
        "examples/rho-plugin-example/tests/",
        "packages/rho-kernel/src/rho_kernel/testing/",
    ):
        assert any(path.startswith(prefix) for path in files), prefix
    assert not any(path.startswith("packages/rho-kernel/src/rho_kernel/loop/") for path in files)


def test_every_public_module_declares_all() -> None:
    for name in PUBLIC_MODULES:
        module = __import__(name, fromlist=["__all__"])
        assert isinstance(module.__all__, list), name
        assert all(hasattr(module, export) for export in module.__all__), name


# A throwaway pack: the contract must catch each way of naming an internal module.
_CLEAN = """\
from __future__ import annotations
import rho_kernel
from rho_kernel import Runtime, hookimpl, security, tools
from rho_kernel.rpc import RpcError
from rho_kernel.testing import ScriptedServer
from rho_kernel.tools import Tool
from . import sibling
PUBLIC = ("rho_kernel.tools", "rho_kernel.nonexistent", "see rho_kernel.runtime for why")
"""

_INTERNAL = {
    "import rho_kernel.runtime": "rho_kernel.runtime",
    "import rho_kernel.tools.base as base": "rho_kernel.tools.base",
    "from rho_kernel.runtime import Runtime": "rho_kernel.runtime",
    "from rho_kernel import runtime": "rho_kernel.runtime",
    "from rho_kernel.security import sandbox": "rho_kernel.security.sandbox",
    "from rho_kernel.testing.server import ScriptedServer": "rho_kernel.testing.server",
    "from rho_kernel.tools import base as tool_base": "rho_kernel.tools.base",
    "from rho_kernel.config.loader import *": "rho_kernel.config.loader",
    "def f():\n    from rho_kernel.home import rho_home": "rho_kernel.home",
    "if TYPE_CHECKING:\n    from rho_kernel.cancel import CancelToken": "rho_kernel.cancel",
    "try:\n    import rho_kernel.encoding\nexcept ImportError:\n    pass": "rho_kernel.encoding",
    "import importlib\nMODULE = importlib.import_module('rho_kernel.runtime')": "rho_kernel.runtime",
    "NAMES = lazy_exports(__name__, {'user_home': 'rho_kernel.home'})": "rho_kernel.home",
}


def _throwaway_pack(tmp_path: Path, extra: str) -> list[Path]:
    package = tmp_path / "packages" / "rho-throwaway" / "src" / "rho_throwaway"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "sibling.py").write_text("VALUE = 1\n", encoding="utf-8")
    (package / "plugin.py").write_text(
        "from typing import TYPE_CHECKING\n" + _CLEAN + extra + "\n", encoding="utf-8"
    )
    return sorted(package.rglob("*.py"))


def test_a_pack_importing_only_public_modules_passes(tmp_path: Path) -> None:
    assert find_violations(_throwaway_pack(tmp_path, ""), tmp_path) == []


@pytest.mark.parametrize("statement", sorted(_INTERNAL))
def test_the_contract_fails_on_an_added_internal_import(tmp_path: Path, statement: str) -> None:
    files = _throwaway_pack(tmp_path, statement)
    violations = find_violations(files, tmp_path)
    path = "packages/rho-throwaway/src/rho_throwaway/plugin.py"
    lines = (tmp_path / path).read_text(encoding="utf-8").splitlines()
    line = 1 + max(n for n, text in enumerate(lines) if "rho_kernel" in text)
    assert violations == [Violation(path, line, _INTERNAL[statement])]
    message = violations[0].describe()
    assert message.startswith(f"{path}:{line} imports internal module {_INTERNAL[statement]}")
    assert "docs/plugins.md" in message


def test_the_testing_package_may_import_its_own_modules(tmp_path: Path) -> None:
    kernel = tmp_path / "rho_kernel"
    (kernel / "testing").mkdir(parents=True)
    (kernel / "__init__.py").write_text("", encoding="utf-8")
    (kernel / "runtime.py").write_text("", encoding="utf-8")
    (kernel / "testing" / "server.py").write_text("", encoding="utf-8")
    helper = kernel / "testing" / "harness.py"
    helper.write_text(
        "from rho_kernel.testing.server import X\nfrom .server import Y\nfrom .. import runtime\n",
        encoding="utf-8",
    )
    violations = find_violations([helper], tmp_path, kernel)
    assert violations == [Violation("rho_kernel/testing/harness.py", 3, "rho_kernel.runtime")]
