"""An extension's ES modules as one script V8 can eval (mini-racer runs scripts only).

`bundle(entry, root)` reads the entry module and every module it imports, turns each into
a function (strict mode, its own scope) and returns a `Bundle` whose `script` evaluates to
the entry's default export. Each module's code is compiled by an indirect `eval` carrying a
`//# sourceURL=` comment, so V8 stack traces and error messages name the module's own
file and line (`parser.ts:12`); the line numbers are the source's, because the import and
export rewriting keeps every line where it was (TypeScript is stripped the same way).

Rules (the extension is hostile input):

- Only relative specifiers (`./x`, `../lib/y.js`) that stay inside `root`; a bare name
  (`lodash`, `node:fs`), an absolute path or a URL is an error naming the file and line.
- `./x` tries `x.ts`, `x.js`, `x/mod.ts`, `x/mod.js`, `x/index.ts`, `x/index.js`;
  `./x.ts`, `./x.js`, `./x.mjs` are exact, except that `./x.js` falls back to `x.ts`.
- Supported: `export default`, `export const/let/var/function/class`, `export { a, b as c }`,
  `export { a } from`, `export * from`, `export * as ns from`, `import x from`,
  `import { a, b as c } from`, `import * as ns from`, `import "./x"`. Imported names are
  checked against the exporting module when bundling. Imported bindings are read when the
  importing module starts (after its dependencies ran), not live.
- Refused: import cycles, dynamic `import()`, `import.meta`, import attributes.
- Each module runs once, dependencies first.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote

from rho_ext_js.typescript import TypeScriptError, strip_with_tree, thread_parser
from rho_kernel import FileTooLargeError, read_regular_file

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "MAX_DEPTH",
    "MAX_MODULES",
    "MAX_MODULE_BYTES",
    "Bundle",
    "ModuleError",
    "bundle",
    "confined_reader",
]

MAX_MODULES = 200
MAX_DEPTH = 64  # modules load recursively: a longer import chain is refused, not a crash
MAX_MODULE_BYTES = 1024 * 1024
_SUFFIXES = (".ts", ".js", ".mjs")
_TRIES = (".ts", ".js", "/mod.ts", "/mod.js", "/index.ts", "/index.js")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NOT_LINE_BREAK = re.compile("[^\n\r\u2028\u2029]")
_IMPORT_WORD = re.compile(r"\bimport\b")
_DEFAULT = "__rho_default"
_NOT_FOUND = (FileNotFoundError, IsADirectoryError, NotADirectoryError)


class ModuleError(ValueError):
    """An extension module that cannot be bundled; `line`/`column` are 1-based (0: none)."""

    def __init__(self, message: str, path: str, line: int = 0, column: int = 0) -> None:
        where = f"{path}:{line}:{column}" if line else path
        super().__init__(f"{where}: {message}")
        self.message = message
        self.path = path
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Bundle:
    """One script for an extension: `script` evaluates to the entry's default export.

    `modules` lists the files in the order they run. `shifts` maps each module's `sourceURL`
    (the name V8 gives it in stack traces and error messages) to the columns rho's prologue adds to the module's first line (in
    UTF-16 units, as V8 counts): a column on line 1 less that is the source's column.
    """

    script: str
    modules: tuple[Path, ...]
    shifts: dict[str, int] = field(default_factory=dict)
    #: Each module's code (a function expression), by `sourceURL`.
    codes: dict[str, str] = field(default_factory=dict)


def confined_reader(root: Path, seen: dict[Path, bytes] | None = None) -> Callable[[Path], str]:
    """A reader that opens only regular files inside `root` (symlinks resolved), UTF-8,
    at most `MAX_MODULE_BYTES`; with `seen`, it records the bytes of each file it read (by
    resolved path), so that what runs is exactly what was checked."""
    real_root = root.resolve()

    def read(path: Path) -> str:
        real = path.resolve()
        if real != real_root and real_root not in real.parents:
            raise PermissionError(f"{path.name} resolves outside the extension folder")
        if not real.is_file():
            raise (
                FileNotFoundError(str(path)) if not real.exists() else IsADirectoryError(str(path))
            )
        try:  # never waits on a FIFO swapped in after the check above
            data = read_regular_file(real, limit=MAX_MODULE_BYTES)
        except FileTooLargeError:
            raise ValueError(f"module is larger than {MAX_MODULE_BYTES} bytes") from None
        if seen is not None:
            seen[real] = data
        try:
            return data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as e:
            raise ValueError(f"module is not UTF-8 (byte {e.start})") from None

    return read


def bundle(
    entry: Path, root: Path, read: Callable[[Path], str] | None = None, *, label: str = ""
) -> Bundle:
    """Bundle the extension module `entry` (inside `root`) and its imports into one script.

    `read` returns a module's text (default: `confined_reader(root)`); it may raise
    `FileNotFoundError`/`IsADirectoryError` for a missing candidate. `label` prefixes module
    names in messages and `sourceURL`s (`label/parser.ts`). Raises `ModuleError`.
    """
    linker = _Linker(Path(os.path.normpath(root.absolute())), read, label)
    entry_path = Path(os.path.normpath(entry.absolute()))
    if not _inside(entry_path, linker.root):
        raise ModuleError("the entry module is outside the extension folder", str(entry))
    index = linker.load(entry_path, None)
    if "default" not in linker.modules[index].exports:
        raise ModuleError("the entry module has no `export default`", linker.name(entry_path))
    return linker.finish(index)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass
class _Module:
    path: Path
    name: str
    index: int
    exports: dict[str, str] = field(default_factory=dict)  # exported name -> JS expression
    code: str = ""
    done: bool = False
    shift: int = 0  # the prologue's length on line 1, in UTF-16 units


@dataclass
class _Site:
    """Where something is in a module, for error messages."""

    module: _Module
    line: int
    column: int


class _Linker:
    """Loads modules depth-first, rewriting each, and assembles the script."""

    def __init__(self, root: Path, read: Callable[[Path], str] | None, label: str) -> None:
        self.root = root
        self.read = read or confined_reader(root)
        self.label = label
        self.modules: list[_Module] = []
        self.by_path: dict[Path, _Module] = {}
        self.order: list[int] = []
        self.stack: list[_Module] = []

    def name(self, path: Path) -> str:
        """`path` as shown to the user and used as `sourceURL`."""
        rel = PurePosixPath(*path.relative_to(self.root).parts).as_posix()
        return f"{self.label}/{rel}" if self.label else rel

    def load(self, path: Path, site: _Site | None) -> int:
        """Load `path` and its dependencies (once); returns its module index."""
        known = self.by_path.get(path)
        if known is not None:
            if not known.done:
                chain = [m.name for m in self.stack[self.stack.index(known) :]] + [known.name]
                self.fail(site, "import cycle: " + " -> ".join(chain))
            return known.index
        if len(self.modules) >= MAX_MODULES:
            self.fail(site, f"more than {MAX_MODULES} modules")
        if len(self.stack) >= MAX_DEPTH:
            self.fail(site, f"imports nested more than {MAX_DEPTH} modules deep")
        text = self.read_at(path, site)
        module = _Module(path, self.name(path), len(self.modules))
        self.modules.append(module)
        self.by_path[path] = module
        self.stack.append(module)
        _Rewriter(self, module, text).run()
        self.stack.pop()
        module.done = True
        self.order.append(module.index)
        return module.index

    def read_at(self, path: Path, site: _Site | None) -> str:
        """The text of `path`; a missing file raises (to try the next candidate) unless it
        is the entry."""
        try:
            return self.read(path)
        except _NOT_FOUND:
            if site is None:
                raise ModuleError("the entry module does not exist", self.name(path)) from None
            raise
        except (OSError, ValueError) as e:
            self.fail(site, f"cannot read {self.name(path)}: {e}")
            raise  # unreachable

    def fail(self, site: _Site | None, message: str) -> None:
        """Raise a `ModuleError` at `site` (or at the module being loaded)."""
        if site is None:
            name = self.stack[-1].name if self.stack else self.label or str(self.root)
            raise ModuleError(message, name)
        raise ModuleError(message, site.module.name, site.line, site.column)

    def resolve(self, specifier: str, site: _Site) -> int:
        """Load the module `specifier` names from `site.module`; returns its index."""
        if _URL.match(specifier):
            self.fail(site, f"cannot import {specifier!r}: URL imports are not supported")
        if specifier.startswith(("/", "\\")) or "\\" in specifier or "\0" in specifier:
            self.fail(site, f"cannot import {specifier!r}: absolute paths are not allowed")
        if not specifier.startswith(("./", "../")):
            self.fail(
                site,
                f"cannot import {specifier!r}: only relative imports inside the extension "
                "('./helper') are supported (no packages)",
            )
        target = os.path.normpath(os.path.join(site.module.path.parent, specifier))
        if not _inside(Path(target), self.root):
            self.fail(site, f"cannot import {specifier!r}: it leaves the extension folder")
        suffix = os.path.splitext(target)[1]
        if suffix in _SUFFIXES:
            candidates = [target] + ([target[:-3] + ".ts"] if suffix == ".js" else [])
        else:
            candidates = [target + t for t in _TRIES]
        for candidate in candidates:
            path = Path(candidate)
            try:
                return self.load(path, site)
            except _NOT_FOUND:
                continue
        tried = ", ".join(self.name(Path(c)) for c in candidates)
        self.fail(site, f"cannot find module {specifier!r} (tried {tried})")
        return -1  # unreachable

    def finish(self, entry: int) -> Bundle:
        """The script: runs each module in order, then yields the entry's default export."""
        lines = [
            "(() => {",
            '"use strict";',
            f"const __rho_ns = Array.from({{length: {len(self.modules)}}}, () => Object.create(null));",
            "const __rho_run = (index, code) => {",
            "  const ns = __rho_ns[index];",
            "  const exporter = (getters) => {",
            "    for (const [key, get] of getters) Object.defineProperty(ns, key, {get, enumerable: true});",
            '    Object.defineProperty(ns, Symbol.toStringTag, {value: "Module"});',
            "    Object.preventExtensions(ns);",
            "  };",
            "  (0, eval)(code)((i) => __rho_ns[i], exporter);",
            "};",
        ]
        for index in self.order:
            lines.append(f"__rho_run({index}, {json.dumps(self.modules[index].code)});")
        lines.append(f"return __rho_ns[{entry}].default;")
        lines.append("})()")
        shifts = {_url(m.name): m.shift for m in self.modules}
        codes = {_url(m.name): m.code for m in self.modules}
        return Bundle(
            "\n".join(lines) + "\n",
            tuple(self.modules[i].path for i in self.order),
            shifts,
            codes,
        )


def _url(name: str) -> str:
    return quote(name, safe="/._-~@+")


class _Rewriter:
    """Rewrites one module's imports and exports in place (lines kept)."""

    def __init__(self, linker: _Linker, module: _Module, text: str) -> None:
        self.linker = linker
        self.module = module
        self.text = text
        self.data = b""
        self.edits: list[tuple[int, int, str]] = []
        self.bindings: list[str] = []  # hoisted import bindings for the prologue
        self.stars: list[int] = []

    def run(self) -> None:
        """Strip types, rewrite, and store the module's code and exports."""
        module = self.module
        source, tree = self.text, None
        if module.path.suffix == ".ts":
            try:
                source, tree = strip_with_tree(source)
            except TypeScriptError as e:
                raise ModuleError(e.message, module.name, e.line, e.column) from None
        self.data = source.encode("utf-8", "surrogatepass")
        if tree is None:  # JavaScript, or TypeScript whose byte offsets moved
            tree = thread_parser("javascript").parse(self.data)
        root = tree.root_node
        if root.has_error:
            self.syntax_error(root)
        statements = 0
        for node in root.children:
            if self.removed(node):
                continue  # type-only syntax (the TypeScript tree still has it)
            if node.type == "import_statement":
                statements += 1
                self.import_statement(node)
            elif node.type == "export_statement":
                self.export_statement(node)
            elif node.type == "hash_bang_line":
                self.edits.append((node.start_byte, node.end_byte, ""))
        if len(_IMPORT_WORD.findall(source)) > statements:
            self.refuse_dynamic(root)
        if _STRICT_WORD.search(source):
            self.refuse_strict_bindings(root)
        self.star_exports()
        module.code = self.assemble()

    def removed(self, node: Node) -> bool:
        """Whether `node`'s text was blanked (type syntax seen in the TypeScript tree)."""
        return not self.data[node.start_byte : node.end_byte].strip()

    def site(self, node: Node) -> _Site:
        row, col = node.start_point
        start = node.start_byte - col
        column = len(self.data[start : node.start_byte].decode("utf-8", "replace")) + 1
        return _Site(self.module, row + 1, column)

    def fail(self, node: Node, message: str) -> None:
        self.linker.fail(self.site(node), message)

    def syntax_error(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.is_missing:
                self.fail(node, f"syntax error: missing {node.type!r}")
            if node.type == "ERROR":
                self.fail(node, "syntax error")
            if node.has_error:
                stack.extend(reversed(node.children))
        self.fail(root, "syntax error")

    def node_text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def string_value(self, node: Node) -> str:
        """The value of a string literal without escapes (escapes are refused)."""
        raw = self.node_text(node)
        if node.type != "string" or "\\" in raw:
            self.fail(node, "module names and imported names must be plain string literals")
        return raw[1:-1]

    def name_of(self, node: Node) -> str:
        return self.string_value(node) if node.type == "string" else self.node_text(node)

    def blank(self, node: Node) -> None:
        self.edits.append(
            (node.start_byte, node.end_byte, _NOT_LINE_BREAK.sub(" ", self.node_text(node)))
        )

    def dependency(self, node: Node) -> int:
        """Load the module named by the statement's `source`; returns its index."""
        if any(c.type == "import_attribute" for c in node.children):
            self.fail(node, "import attributes (`with {...}`) are not supported")
        source = node.child_by_field_name("source")
        assert source is not None
        return self.linker.resolve(self.string_value(source), self.site(source))

    def imported(self, dep: int, name: str, node: Node) -> str:
        """The JS expression for `name` exported by module `dep` (checked to exist)."""
        target = self.linker.modules[dep]
        if name not in target.exports:
            self.fail(node, f"{target.name} does not export {name!r}")
        return f"__rho_import({dep})[{json.dumps(name)}]"

    def import_statement(self, node: Node) -> None:
        dep = self.dependency(node)
        self.blank(node)
        clause = next((c for c in node.children if c.type == "import_clause"), None)
        for part in clause.children if clause is not None else []:
            if part.type == "identifier":
                self.bindings.append(
                    f"const {self.node_text(part)} = {self.imported(dep, 'default', part)};"
                )
            elif part.type == "namespace_import":
                local = part.named_children[-1]
                self.bindings.append(f"const {self.node_text(local)} = __rho_import({dep});")
            elif part.type == "named_imports":
                specs = (c for c in part.children if c.type == "import_specifier")
                for spec in (c for c in specs if not self.removed(c)):
                    name = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias") or name
                    assert name is not None and alias is not None
                    value = self.imported(dep, self.name_of(name), spec)
                    self.bindings.append(f"const {self.node_text(alias)} = {value};")

    def export_statement(self, node: Node) -> None:
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(c.type == "default" for c in node.children)
        if declaration is not None:
            self.edits.append(
                (
                    node.start_byte,
                    declaration.start_byte,
                    self.spaces(node.start_byte, declaration.start_byte),
                )
            )
            names = _declared_names(declaration, self.node_text)
            if is_default:
                if not names:
                    self.fail(node, "unsupported default export")
                self.export(node, "default", names[0])
            for name in [] if is_default else names:
                self.export(node, name, name)
            return
        if value is not None:
            start, end = node.start_byte, value.start_byte
            assign = _DEFAULT + "="  # as long as `export default`: later columns stay
            self.edits.append((start, end, assign + self.spaces(start, end)[len(assign) :]))
            self.export(node, "default", _DEFAULT)
            return
        self.blank(node)
        source = node.child_by_field_name("source")
        dep = self.dependency(node) if source is not None else None
        for part in node.children:
            if part.type == "*":
                assert dep is not None
                self.stars.append(dep)
            elif part.type == "namespace_export":
                self.export(part, self.name_of(part.named_children[-1]), f"__rho_import({dep})")
            elif part.type == "export_clause":
                specs = (c for c in part.children if c.type == "export_specifier")
                for spec in (c for c in specs if not self.removed(c)):
                    name_node = spec.child_by_field_name("name")
                    alias_node = spec.child_by_field_name("alias") or name_node
                    assert name_node is not None and alias_node is not None
                    local = self.name_of(name_node)
                    exported = local if dep is None else self.imported(dep, local, spec)
                    self.export(spec, self.name_of(alias_node), exported)

    def export(self, node: Node, name: str, expression: str) -> None:
        """Export `expression` as `name` (each name once)."""
        if name in self.module.exports:
            self.fail(node, f"{name!r} is exported twice")
        self.module.exports[name] = expression

    def spaces(self, start: int, end: int) -> str:
        """Blank text for the byte span, line breaks kept."""
        return _NOT_LINE_BREAK.sub(" ", self.data[start:end].decode("utf-8", "surrogatepass"))

    def star_exports(self) -> None:
        """`export * from`: every name but `default` not exported explicitly."""
        exports = self.module.exports
        for dep in self.stars:
            for name in self.linker.modules[dep].exports:
                if name != "default" and name not in exports:
                    exports[name] = f"__rho_import({dep})[{json.dumps(name)}]"

    def refuse_dynamic(self, root: Node) -> None:
        """Refuse `import(...)` and `import.meta` anywhere in the module."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "meta_property" and node.children[0].type == "import":
                self.fail(node, "`import.meta` is not supported")
            if node.type == "call_expression":
                function = node.child_by_field_name("function")
                if function is not None and function.type == "import":
                    self.fail(node, "dynamic `import()` is not supported (use a static import)")
            stack.extend(node.children)

    def refuse_strict_bindings(self, root: Node) -> None:
        """Refuse binding or assigning `arguments` or `eval` (strict mode forbids it, and
        V8's own error would name no line)."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type in _NAME_NODES and self.text_of(node) in _STRICT_NAMES and _binds(node):
                self.fail(
                    node,
                    f"`{self.text_of(node)}` cannot be bound or assigned here: an extension "
                    "module is strict mode code (rename it)",
                )
            stack.extend(node.children)

    def text_of(self, node: Node) -> str:
        """The source text of `node`."""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def assemble(self) -> str:
        """The module's code: a function expression whose prologue shares the first line."""
        out: list[str] = []
        pos = 0
        for start, end, text in sorted(self.edits):
            out.append(self.data[pos:start].decode("utf-8", "surrogatepass"))
            out.append(text)
            pos = end
        out.append(self.data[pos:].decode("utf-8", "surrogatepass"))
        getters = ", ".join(
            f"[{json.dumps(name)}, () => {expr}]"
            for name, expr in sorted(self.module.exports.items())
        )
        declare = f"let {_DEFAULT}; " if _DEFAULT in self.module.exports.values() else ""
        prologue = (
            '(function (__rho_import, __rho_export) {"use strict"; '
            f"{declare}__rho_export([{getters}]); {' '.join(self.bindings)}"
        )
        body = "".join(out)
        self.module.shift = len(prologue.encode("utf-16-le")) // 2
        return f"{prologue}{body}\n}})\n//# sourceURL={_url(self.module.name)}"


_STRICT_NAMES = frozenset({"arguments", "eval"})
_STRICT_WORD = re.compile(r"\b(?:arguments|eval)\b")
_NAME_NODES = frozenset({"identifier", "type_identifier", "shorthand_property_identifier_pattern"})
#: Parents whose identifier children all bind a name.
_BINDING_PARENTS = frozenset(
    {"formal_parameters", "array_pattern", "rest_pattern", "catch_clause", "update_expression"}
)
#: Parents whose identifier in the given field binds (or assigns) a name.
_BINDING_FIELDS = {
    "variable_declarator": "name",
    "required_parameter": "pattern",
    "optional_parameter": "pattern",
    "arrow_function": "parameter",
    "function_declaration": "name",
    "function_expression": "name",
    "generator_function_declaration": "name",
    "generator_function": "name",
    "class_declaration": "name",
    "class": "name",
    "pair_pattern": "value",
    "assignment_pattern": "left",
    "object_assignment_pattern": "left",
    "assignment_expression": "left",
    "augmented_assignment_expression": "left",
    "for_in_statement": "left",
}


def _binds(node: Node) -> bool:
    """Whether the name `node` is bound or assigned there (not merely read)."""
    if node.type == "shorthand_property_identifier_pattern":
        return True
    parent = node.parent
    if parent is None:
        return False
    if parent.type in _BINDING_PARENTS:
        return True
    field_name = _BINDING_FIELDS.get(parent.type)
    return field_name is not None and parent.child_by_field_name(field_name) == node


def _declared_names(declaration: Node, text: Callable[[Node], str]) -> list[str]:
    """Names bound by an exported declaration (destructuring patterns included)."""
    if declaration.type in ("lexical_declaration", "variable_declaration"):
        names: list[str] = []
        for declarator in (c for c in declaration.children if c.type == "variable_declarator"):
            pattern = declarator.child_by_field_name("name")
            if pattern is not None:
                _pattern_names(pattern, text, names)
        return names
    name = declaration.child_by_field_name("name")
    return [text(name)] if name is not None else []


def _pattern_names(pattern: Node, text: Callable[[Node], str], names: list[str]) -> None:
    """Append the names a destructuring pattern binds (iterative: nesting is unbounded)."""
    stack = [pattern]
    while stack:
        node = stack.pop()
        if node.type in ("identifier", "shorthand_property_identifier_pattern"):
            names.append(text(node))
        elif node.type == "pair_pattern":
            value = node.child_by_field_name("value")
            stack.extend([value] if value is not None else [])
        elif node.type in ("assignment_pattern", "object_assignment_pattern"):
            left = node.child_by_field_name("left")
            stack.extend([left] if left is not None else [])
        else:
            stack.extend(reversed(node.named_children))
