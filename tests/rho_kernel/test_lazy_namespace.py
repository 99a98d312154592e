"""The kernel's namespaces resolve their names on first use (PEP 562), and resolve them right."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path

import pytest

import rho_kernel
from rho_kernel.lazy import exports_of, lazy_exports

SRC = Path(rho_kernel.__file__).resolve().parent

#: The packages whose `__init__` resolves its names lazily.
LAZY_PACKAGES = [
    "rho_kernel",
    *(
        f"rho_kernel.{name}"
        for name in (
            "compaction",
            "config",
            "confinement",
            "context",
            "loop",
            "process",
            "providers",
            "security",
            "session",
            "tools",
        )
    ),
]


def _fresh_modules(code: str) -> list[str]:
    """The rho_kernel modules loaded by a new interpreter after running `code`."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return [name for name in out.split() if name.startswith("rho_kernel")]


def _type_checking_imports(package: str) -> dict[str, str]:
    """`{name: module}` of the imports under `if TYPE_CHECKING:` in the package's __init__."""
    init = Path(importlib.import_module(package).__file__ or "")
    found: dict[str, str] = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for item in node.body:
                if isinstance(item, ast.ImportFrom) and item.module:
                    for alias in item.names:
                        found[alias.asname or alias.name] = item.module
    return found


def _eager_imports(package: str) -> set[str]:
    """The names the package's __init__ imports when it is imported (`lazy_exports` itself)."""
    init = Path(importlib.import_module(package).__file__ or "")
    return {
        alias.asname or alias.name
        for node in ast.parse(init.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
    }


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_exported_name_is_its_defining_modules_object(package: str) -> None:
    module = importlib.import_module(package)
    origin: dict[str, str] = module._ORIGIN
    eager = _eager_imports(package) & set(module.__all__)
    assert eager <= {"lazy_exports"}, eager
    assert set(module.__all__) - {"__version__"} == set(origin) | eager
    for name, defining in origin.items():
        assert getattr(module, name) is getattr(importlib.import_module(defining), name), name


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checkers_see_the_same_names_from_the_same_modules(package: str) -> None:
    module = importlib.import_module(package)
    assert _type_checking_imports(package) == module._ORIGIN


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_from_import_works_for_every_name_in_a_fresh_process(package: str) -> None:
    names = [n for n in importlib.import_module(package).__all__ if n != "__version__"]
    code = f"from {package} import {', '.join(names)}"
    assert _fresh_modules(code)  # raises on an ImportError


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_dir_lists_every_name_and_unknown_names_fail(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) - {"__version__"} <= set(dir(module))
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        exec(f"from {package} import no_such_name", {})


def test_importing_rho_kernel_imports_none_of_its_modules() -> None:
    assert _fresh_modules("import rho_kernel") == ["rho_kernel", "rho_kernel.lazy"]


def test_a_public_name_imports_only_what_defines_it() -> None:
    loaded = _fresh_modules("from rho_kernel import hookimpl, tool")
    heavy = [
        name
        for name in loaded
        if name.startswith(("rho_kernel.loop", "rho_kernel.compaction", "rho_kernel.confinement"))
    ]
    assert heavy == []


def test_version_is_the_installed_distributions() -> None:
    assert rho_kernel.__version__ == metadata.version("rho-kernel")
    assert "__version__" in rho_kernel.__all__


def test_exports_of_refuses_a_name_exported_twice() -> None:
    with pytest.raises(ValueError, match="both"):
        exports_of({"a.one": ("X",), "a.two": ("X",)})


def test_lazy_exports_keeps_a_resolved_name_in_the_namespace() -> None:
    module = type(sys)("lazy_probe_package")
    sys.modules["lazy_probe_package"] = module
    try:
        getter, _ = lazy_exports("lazy_probe_package", {"dedent": "textwrap"})
        import textwrap

        assert getter("dedent") is textwrap.dedent
        assert vars(module)["dedent"] is textwrap.dedent
    finally:
        del sys.modules["lazy_probe_package"]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checkers_do_not_see_the_module_getattr(package: str) -> None:
    """A module `__getattr__` visible to mypy would make every misspelt import type-check."""
    init = Path(importlib.import_module(package).__file__ or "")
    seen: list[str] = []
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        hidden = isinstance(node, ast.If) and ast.unparse(node.test) == "not TYPE_CHECKING"
        for item in ast.walk(node):
            names = []
            if isinstance(item, ast.FunctionDef):
                names = [item.name]
            elif isinstance(item, ast.Assign):
                names = [n.id for t in item.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            if "__getattr__" in names:
                seen.append("hidden" if hidden else "visible")
    assert seen == ["hidden"]


@pytest.mark.parametrize(
    ("package", "distribution"),
    [
        ("rho_kernel", "rho-kernel"),
        ("rho_tools_fs", "rho-tools-fs"),
        ("rho_tools_rust", "rho-tools-rust"),
        ("rho_memory", "rho-memory"),
        ("rho_ext_js", "rho-ext-js"),
    ],
)
def test_each_package_reads_its_version_from_its_own_distribution(
    package: str, distribution: str
) -> None:
    from importlib import metadata

    assert importlib.import_module(package).__version__ == metadata.version(distribution)


def test_a_version_of_a_source_tree_that_is_not_installed_is_unknown() -> None:
    from rho_kernel import lazy_exports

    module = types.ModuleType("not_installed_pack")
    sys.modules[module.__name__] = module
    try:
        getattr_, dir_ = lazy_exports(module.__name__, {}, distribution="no-such-rho-dist")
        assert getattr_("__version__") == "0+unknown" == module.__dict__["__version__"]
        assert "__version__" in dir_()
        with pytest.raises(AttributeError, match="no attribute 'Other'"):
            getattr_("Other")
    finally:
        del sys.modules[module.__name__]


def test_installed_versions_are_read_as_importlib_metadata_reads_them() -> None:
    from importlib import metadata

    from rho_kernel.lazy import _dist_info_version, installed_version

    names = sorted({dist.metadata["Name"] for dist in metadata.distributions()})
    assert len(names) > 10
    assert {name: installed_version(name) for name in names} == {
        name: metadata.version(name) for name in names
    }
    assert all(_dist_info_version(name) is not None for name in names)  # none fell back
    assert installed_version("no-such-distribution-xyz") == "0+unknown"
