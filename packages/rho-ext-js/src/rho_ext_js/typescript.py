"""TypeScript to JavaScript by removing the type syntax (tree-sitter, no type checking).

`strip_types` parses the source with the tree-sitter TypeScript grammar and blanks every
piece of type syntax with spaces, keeping newlines, so every remaining token stays on its
line and column: a runtime error at line L column C of the output is at L:C of the source.
Two constructs are rewritten rather than blanked, and only on their own lines may columns
move: an `enum` becomes an object built the way TypeScript builds it, and constructor
parameter properties (`constructor(private x: number)`) become `this.x = x;` at the start
of the constructor body (after the `super(...)` statement in a derived class).

Refused with `TypeScriptError` (no JavaScript equivalent without a type-aware compiler):
`namespace`/`module` blocks, decorators, `import x = require(...)` and `export =`.

Imported lazily (tree-sitter is not on rho's startup path).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

__all__ = ["TypeScriptError", "strip_types"]

# Nodes that are type syntax through and through: blanked whole.
_BLANK_NODES = frozenset(
    {
        "type_annotation",
        "asserts_annotation",
        "type_predicate_annotation",
        "type_parameters",
        "type_arguments",
        "implements_clause",
        "accessibility_modifier",
        "override_modifier",
        "interface_declaration",
        "type_alias_declaration",
        "ambient_declaration",
        "function_signature",
        "method_signature",
        "abstract_method_signature",
        "index_signature",
    }
)
# Declarations that leave nothing behind, so `export <decl>` goes entirely.
_TYPE_DECLARATIONS = frozenset(
    {"interface_declaration", "type_alias_declaration", "ambient_declaration", "function_signature"}
)
# Modifier tokens with no runtime meaning.
_MODIFIER_TOKENS = frozenset({"readonly", "abstract"})
_REFUSED = {
    "internal_module": "namespaces are not supported (use a module)",
    "module": "namespaces are not supported (use a module)",
    "decorator": "decorators are not supported",
    "import_require_clause": "`import x = require(...)` is not supported (use `import`)",
}
_NOT_LINE_BREAK = re.compile("[^\n\r\u2028\u2029]")

_parser_local = threading.local()


class TypeScriptError(ValueError):
    """A TypeScript source rho cannot turn into JavaScript; `line`/`column` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class _Edit:
    start: int  # byte offsets into the UTF-8 source
    end: int
    text: str | None  # None: blank the span (spaces, line breaks kept)


def thread_parser(language: str) -> Any:
    """This thread's tree-sitter parser for `language` ("typescript", "javascript"):
    parsers are not shared between threads."""
    parser = getattr(_parser_local, language, None)
    if parser is None:
        from tree_sitter_language_pack import get_parser

        parser = get_parser(language)  # type: ignore[arg-type]
        setattr(_parser_local, language, parser)
    return parser


def _parser() -> Any:
    """This thread's TypeScript parser."""
    return thread_parser("typescript")


def strip_types(source: str) -> str:
    """JavaScript for the TypeScript `source`: type syntax blanked, positions kept.

    Raises `TypeScriptError` naming the line and column of a syntax error or of a
    construct that has no JavaScript equivalent.
    """
    return strip_with_tree(source)[0]


def strip_with_tree(source: str) -> tuple[str, Tree | None]:
    """`strip_types`, plus the TypeScript syntax tree when its byte offsets are still
    those of the JavaScript (nothing rewritten, only ASCII blanked), else None.

    Reusing that tree spares the module bundler a second parse.
    """
    data = source.encode("utf-8", "surrogatepass")
    tree = _parser().parse(data)
    root = tree.root_node
    if root.has_error:
        _raise_syntax_error(root, data)
    stripper = _Stripper(data)
    stripper.visit(root)
    if not stripper.edits:
        return source, tree
    javascript = stripper.apply()
    rewrote = any(edit.text is not None for edit in stripper.edits)
    same_bytes = not rewrote and len(javascript.encode("utf-8", "surrogatepass")) == len(data)
    return javascript, tree if same_bytes else None


def _position(data: bytes, node: Node) -> tuple[int, int]:
    """1-based line and character column of `node`'s start."""
    row, col = node.start_point
    line_start = node.start_byte - col
    prefix = data[line_start : node.start_byte].decode("utf-8", "replace")
    return row + 1, len(prefix) + 1


def _raise_syntax_error(root: Node, data: bytes) -> None:
    """Raise a `TypeScriptError` for the first error or missing node in the tree."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            line, column = _position(data, node)
            raise TypeScriptError(f"syntax error: missing {node.type!r}", line, column)
        if node.type == "ERROR":
            line, column = _position(data, node)
            snippet = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
            snippet = snippet.strip().splitlines()[0][:40] if snippet.strip() else snippet
            raise TypeScriptError(f"syntax error: unexpected {snippet!r}", line, column)
        if node.has_error:
            stack.extend(reversed(node.children))
    raise TypeScriptError("syntax error", 1, 1)


class _Stripper:
    """Walks the syntax tree and collects the edits that remove type syntax."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.edits: list[_Edit] = []
        self.covered = 0  # end of the last node done whole: nothing inside it matters

    def blank(self, node: Node) -> None:
        """Blank `node` whole."""
        self.edits.append(_Edit(node.start_byte, node.end_byte, None))

    def refuse(self, node: Node, message: str) -> NoReturn:
        """Raise a `TypeScriptError` at `node`."""
        line, column = _position(self.data, node)
        raise TypeScriptError(message, line, column)

    def visit(self, root: Node) -> None:
        """Collect edits for the nodes under `root` that may hold type syntax.

        The query finds them in C (a Python walk over every node costs several times
        the parse); they are handled in document order, outer before inner, and a node
        inside one handled whole (no children left to visit) is skipped, as in a walk.
        """
        captures = _query_cursor().captures(root)
        nodes = [node for found in captures.values() for node in found]
        nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
        for node in nodes:
            if node.start_byte < self.covered:
                continue
            if not self.handle(node):
                self.covered = node.end_byte

    def handle(self, node: Node) -> list[Node]:
        """Edits for `node` itself; returns the children that may still hold types."""
        kind = node.type
        if kind in _BLANK_NODES:
            self.blank(node)
            return []
        if kind in _REFUSED:
            self.refuse(node, _REFUSED[kind])
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handled: list[Node] = handler(self, node)
            return handled
        return node.children

    def apply(self) -> str:
        """The source with every edit applied."""
        edits = sorted(self.edits, key=lambda e: (e.start, e.end))
        out: list[str] = []
        pos = 0
        data = self.data
        for edit in edits:
            if edit.start < pos:  # inside a span already blanked
                continue
            out.append(data[pos : edit.start].decode("utf-8", "surrogatepass"))
            original = data[edit.start : edit.end].decode("utf-8", "surrogatepass")
            if edit.text is None:
                out.append(_NOT_LINE_BREAK.sub(" ", original))
            else:  # a rewrite keeps the line count, so later lines do not move
                breaks = original.count("\n") - edit.text.count("\n")
                out.append(edit.text + "\n" * max(breaks, 0))
            pos = max(pos, edit.end)
        out.append(data[pos:].decode("utf-8", "surrogatepass"))
        return "".join(out)

    # -- handlers -------------------------------------------------------------------------

    def import_statement(self, node: Node) -> list[Node]:
        """`import type ...` goes; `import { type A, b }` loses `type A`."""
        if any(c.type == "type" for c in node.children):
            self.blank(node)
            return []
        clause = next((c for c in node.children if c.type == "import_clause"), None)
        if clause is None:
            return node.children
        others = [c for c in clause.children if c.type not in ("named_imports", ",")]
        named = next((c for c in clause.children if c.type == "named_imports"), None)
        if (
            named is not None
            and self.drop_type_specifiers(named, "import_specifier")
            and not others
        ):
            self.blank(node)  # every binding was a type: nothing is imported
            return []
        return node.children

    def export_statement(self, node: Node) -> list[Node]:
        """`export type ...`, `export interface ...` go; `export { type A }` loses `type A`."""
        children = node.children
        if any(c.type == "type" for c in children):
            self.blank(node)
            return []
        declaration = node.child_by_field_name("declaration")
        if declaration is not None and declaration.type in _TYPE_DECLARATIONS:
            self.blank(node)
            return []
        if len(children) > 1 and children[1].type == "=":
            self.refuse(node, "`export =` is not supported (use `export default`)")
        clause = next((c for c in children if c.type == "export_clause"), None)
        if clause is not None and self.drop_type_specifiers(clause, "export_specifier"):
            self.blank(node)  # every name was a type: nothing is exported
            return []
        return children

    def is_type_spec(self, node: Node) -> bool:
        """Whether `node` is an import/export specifier marked `type`."""
        return any(c.type == "type" for c in node.children)

    def drop_type_specifiers(self, braces: Node, kind: str) -> bool:
        """Blank the `type X` specifiers (with their commas); True if all were types."""
        specs = [c for c in braces.children if c.type == kind]
        typed = [c for c in specs if self.is_type_spec(c)]
        for spec in typed:
            self.blank(spec)
            after = spec.next_sibling
            if after is not None and after.type == ",":
                self.blank(after)
        return bool(specs) and len(typed) == len(specs)

    def cast(self, node: Node) -> list[Node]:
        """`x as T`, `x satisfies T`, `x as const`: keep `x`."""
        expression = node.children[0]
        self.edits.append(_Edit(expression.end_byte, node.end_byte, None))
        return [expression]

    def non_null(self, node: Node) -> list[Node]:
        """`x!`: keep `x`."""
        expression = node.children[0]
        self.edits.append(_Edit(expression.end_byte, node.end_byte, None))
        return [expression]

    def markers(self, node: Node) -> list[Node]:
        """Optional `?`, definite `!` and modifier tokens on fields, params and methods."""
        kinds = {c.type for c in node.children}
        if node.type == "public_field_definition" and kinds & {"declare", "abstract"}:
            self.blank(node)  # a field that exists only for the type checker
            return []
        rest = []
        for child in node.children:
            if child.type in ("?", "!") or child.type in _MODIFIER_TOKENS:
                self.blank(child)
            else:
                rest.append(child)
        return rest

    def parameter(self, node: Node) -> list[Node]:
        """Parameters: a `this` parameter goes (with its comma); the rest lose markers."""
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "this":
            self.blank(node)
            after = node.next_sibling
            if after is not None and after.type == ",":
                self.blank(after)
            return []
        return self.markers(node)

    def abstract_class(self, node: Node) -> list[Node]:
        """`abstract class`: the class without `abstract`."""
        return self.markers(node)

    def method(self, node: Node) -> list[Node]:
        """Methods: markers, plus parameter properties for a constructor."""
        name = node.child_by_field_name("name")
        if name is not None and self.text(name) == "constructor":
            self.parameter_properties(node)
        return self.markers(node)

    def text(self, node: Node) -> str:
        """The source text of `node`."""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def parameter_properties(self, method: Node) -> None:
        """`constructor(private x)`: assign `this.x = x;` at the start of the body."""
        params = method.child_by_field_name("parameters")
        body = method.child_by_field_name("body")
        if params is None or body is None:
            return
        names: list[str] = []
        for param in params.children:
            mods = [
                c
                for c in param.children
                if c.type in ("accessibility_modifier", "readonly", "override_modifier")
            ]
            if not mods:
                continue
            pattern = param.child_by_field_name("pattern")
            if pattern is None or pattern.type != "identifier":
                self.refuse(param, "a parameter property must be a plain name")
            names.append(self.text(pattern))
        if not names:
            return
        assignments = " " + " ".join(f"this.{n} = {n};" for n in names)
        self.edits.append(
            _Edit(
                self.insertion_point(method, body), self.insertion_point(method, body), assignments
            )
        )

    def insertion_point(self, method: Node, body: Node) -> int:
        """Where parameter-property assignments go: after `{`, or after `super(...)`."""
        klass = method.parent.parent if method.parent is not None else None
        derived = klass is not None and any(
            c.type == "class_heritage" and any(h.type == "extends_clause" for h in c.children)
            for c in klass.children
        )
        if not derived:
            return body.children[0].end_byte
        for statement in body.named_children:
            call = statement.named_children[0] if statement.type == "expression_statement" else None
            if call is not None and call.type == "call_expression":
                function = call.child_by_field_name("function")
                if function is not None and function.type == "super":
                    return statement.end_byte
        self.refuse(
            method,
            "parameter properties in a derived class need a `super(...)` statement in the constructor",
        )
        return 0  # unreachable

    def enum(self, node: Node) -> list[Node]:
        """`enum E { A, B = 5, C = "c" }`: an object built the way TypeScript builds it."""
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None:
            self.refuse(node, "malformed enum")
            return []
        ident = self.text(name)
        self.edits.append(
            _Edit(node.start_byte, body.children[0].end_byte, f"const {ident} = (({ident}) => {{")
        )
        previous: str | None = None
        members = [c for c in body.children if c.type not in ("{", "}", ",", "comment")]
        for member in members:
            key_node = (
                member.child_by_field_name("name") if member.type == "enum_assignment" else member
            )
            value = (
                member.child_by_field_name("value") if member.type == "enum_assignment" else None
            )
            key_node = key_node or member
            key_text = self.text(key_node)
            key = key_text if key_node.type == "string" else json.dumps(key_text)
            if value is not None and value.type in ("string", "template_string"):
                code = f"{ident}[{key}] = {self.text(value)};"
            else:
                init = (
                    f"({self.text(value)})"
                    if value is not None
                    else "0"
                    if previous is None
                    else f"{ident}[{previous}] + 1"
                )
                code = f"{ident}[{ident}[{key}] = {init}] = {key};"
            self.edits.append(_Edit(member.start_byte, member.end_byte, code))
            previous = key
        for comma in (c for c in body.children if c.type == ","):
            self.edits.append(_Edit(comma.start_byte, comma.end_byte, None))
        close = body.children[-1]
        self.edits.append(_Edit(close.start_byte, close.end_byte, f"return {ident}; }})({{}});"))
        return []


def _query_cursor() -> Any:
    """This thread's query cursor over the nodes `_Stripper.handle` acts on."""
    cursor = getattr(_parser_local, "cursor", None)
    if cursor is None:
        from tree_sitter import Query, QueryCursor

        kinds = sorted(_BLANK_NODES | set(_REFUSED) | set(_HANDLERS))
        pattern = "[" + " ".join(f"({kind})" for kind in kinds) + "] @node"
        cursor = QueryCursor(Query(_parser().language, pattern))
        _parser_local.cursor = cursor
    return cursor


_HANDLERS: dict[str, Any] = {
    "import_statement": _Stripper.import_statement,
    "export_statement": _Stripper.export_statement,
    "as_expression": _Stripper.cast,
    "satisfies_expression": _Stripper.cast,
    "non_null_expression": _Stripper.non_null,
    "public_field_definition": _Stripper.markers,
    "variable_declarator": _Stripper.markers,
    "required_parameter": _Stripper.parameter,
    "optional_parameter": _Stripper.parameter,
    "method_definition": _Stripper.method,
    "abstract_class_declaration": _Stripper.abstract_class,
    "enum_declaration": _Stripper.enum,
}
