"""Parse a bash line with the tree-sitter bash grammar into simple commands.

Every `command` node of the tree is collected — those inside pipelines, lists, subshells,
`{ …; }` groups, `$(…)`, backticks, process substitutions, functions, loops and
conditionals alike — so nothing hides behind the first word. tree-sitter is imported on
first use, never at startup.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rho_kernel.security.shellwords import (
    Assignment,
    ParsedLine,
    Reading,
    SimpleCommand,
    Word,
    shown,
)

#: Node types that are arguments of a command (anything else is skipped: assignments,
#: redirections, comments).
_ARGUMENT_TYPES = frozenset(
    {
        "word",
        "number",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
    }
)
_REDIRECT_TYPES = frozenset({"file_redirect", "herestring_redirect"})
#: `export`, `declare`, `local`, `readonly`, `typeset` (and `unset`): checked as commands.
_DECLARATION_TYPES = frozenset({"declaration_command", "unset_command"})
#: `${X:-d}`, `${X-d}`, `${X:=d}`, `${X=d}`, `${X:+a}`, `${X+a}`: the word may read as d/a.
_DEFAULT_OPERATORS = frozenset({":-", "-", ":=", "=", ":+", "+"})
#: Expansions nested deeper than this (`${A:-${B:-…}}`) read as `/`: anything at all.
MAX_EXPANSION_DEPTH = 16
_UNKNOWN_READING = Reading("/", False)
#: At most this many readings of one word are kept (the shortest: the dangerous ones, `/`
#: or `~`, are short).
MAX_READINGS = 64
_HOME_VARIABLES = frozenset({"HOME", "{HOME}"})
_GLOB = re.compile(r"(?<!\\)[*?\[]|(?<!\\)\{[^}]*(,|\.\.)[^}]*\}")
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(?:\$\(|`)")
_QUOTED_TYPES = frozenset({"raw_string", "ansi_c_string", "string", "word", "concatenation"})
_BACKSLASH = re.compile(r"\\(.)", re.DOTALL)
_DOUBLE_ESCAPE = re.compile(r'\\([$`"\\])')
#: `${X/p/r}`, `${X//p/r}`, `${X/#p/r}`, `${X/%p/r}`: the operator, then `/` before r.
_SUBSTITUTE_OPERATORS = frozenset({"/", "//", "/#", "/%"})
_CONTINUATIONS = re.compile(rb"(?:\\\n)+")
_ANSI_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)


#: Values a line assigns to variables (static ones), by name.
Known = Mapping[str, Sequence[str]]
_NOTHING_KNOWN: Known = {}


@functools.cache
def _parser() -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser("bash")


def _unescape_word(text: str) -> str:
    """An unquoted word after backslash removal (`c\\url` is `curl`)."""
    if "\\" not in text:
        return text
    return _BACKSLASH.sub(r"\1", text.replace("\\\n", ""))


def _unescape_double(text: str) -> str:
    """The inside of a double-quoted string: only `\\$`, `` \\` ``, `\\"`, `\\\\` escape."""
    if "\\" not in text:
        return text
    return _DOUBLE_ESCAPE.sub(r"\1", text.replace("\\\n", ""))


def _ansi_char(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "xuU":
        return chr(min(int(code[1:], 16), 0x10FFFF))
    if code[0].isdigit():
        return chr(int(code, 8))
    if code[0] == "c" and len(code) == 2:
        return chr(ord(code[1]) & 0x1F)
    return _ANSI_ESCAPES.get(code, "\\" + code)


def _decode_ansi(text: str) -> str:
    """The value of `$'…'` (without `$'` and `'`)."""
    return _ANSI.sub(_ansi_char, text)


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def _expansion_worst(node: Any) -> str:
    """`$HOME`/`${HOME}` count as `~` in the worst case; other expansions as empty."""
    if node.type in ("simple_expansion", "expansion"):
        name = _text(node)[1:]
        if name in _HOME_VARIABLES:
            return "~"
    return ""


def _string_word(node: Any, text: str) -> Word:
    """A `"…"` or `$"…"` string: static unless it holds an expansion."""
    dynamic = [c for c in node.named_children if c.type != "string_content"]
    start = 2 if text.startswith('$"') else 1
    if not dynamic:
        return Word(text, _unescape_double(text[start:-1]), _unescape_double(text[start:-1]))
    worst = "".join(
        _unescape_double(_text(c)) if c.type == "string_content" else _expansion_worst(c)
        for c in node.named_children
    )
    return Word(text, None, worst)


def _unique(readings: Sequence[Reading]) -> list[Reading]:
    kept = list(dict.fromkeys(readings))
    return (
        kept
        if len(kept) <= MAX_READINGS
        else sorted(kept, key=lambda r: len(r.text))[:MAX_READINGS]
    )


def _sequence(nodes: Sequence[Any], known: Known, depth: int) -> list[Reading]:
    """The readings of `nodes` written one after the other."""
    result = [Reading("", True)]
    for node in nodes:
        options = _readings(node, known, depth)
        result = _unique(
            [Reading(a.text + b.text, a.exact and b.exact) for a in result for b in options]
        )
    return result


def _expansion_readings(node: Any, known: Known, depth: int) -> list[Reading]:
    """`$X`/`${X…}`: empty, a value the line assigns to `X`, a default or alternate value
    (`${X:-d}`, `${X:+a}`) or a replacement (`${X/pattern/r}`, which may be all of it)."""
    found = [Reading(_expansion_worst(node), False)]
    children = node.children
    names = [c for c in children if c.type == "variable_name"]
    if names and (values := known.get(_text(names[0]))):
        found += [Reading(value, True) for value in values]
    if node.type != "expansion":
        return _unique(found)
    slashes = [i for i, c in enumerate(children) if c.type in _SUBSTITUTE_OPERATORS]
    for index, child in enumerate(children):
        if child.type in _DEFAULT_OPERATORS:
            found += _sequence(children[index + 1 : -1], known, depth + 1)
            break
    if slashes and len(slashes) >= 2:
        replaced = _sequence(children[slashes[1] + 1 : -1], known, depth + 1)
        found += [Reading(r.text, False) for r in replaced]
    return _unique(found)


def _readings(node: Any, known: Known, depth: int = 0) -> list[Reading]:
    """Every worst-case reading of `node`: each expansion empty (`$HOME` as `~`), or a value
    the line assigns to it, or (`${X:-d}` and kin) its default or alternate value."""
    if depth > MAX_EXPANSION_DEPTH:
        return [_UNKNOWN_READING]
    kind = node.type
    if kind in ('"', '$"', "${", "}"):
        return [Reading("", True)]
    if kind == "string_content":
        return [Reading(_unescape_double(_text(node)), True)]
    if kind in ("string", "translated_string", "concatenation"):
        return _sequence(node.children, known, depth + 1)
    if kind in ("simple_expansion", "expansion"):
        return _expansion_readings(node, known, depth)
    word = _word(node)
    return [Reading(word.value, True) if word.value is not None else Reading(word.worst, False)]


def word_of(node: Any, known: Known = _NOTHING_KNOWN) -> Word:
    """The `Word` for an argument node, with its further readings (see `Word`): defaults
    and alternates of `${X:-d}` and kin, and the values `known` gives variables."""
    word = _word(node)
    if word.value is None and ("${" in word.text or (known and "$" in word.text)):
        readings = tuple(r for r in _readings(node, known) if r != Reading(word.worst, False))
        return dataclasses.replace(word, readings=readings)
    return word


def _word(node: Any) -> Word:
    text = _text(node)
    kind = node.type
    if kind == "word":
        value = _unescape_word(text)
        return Word(text, value, value, pattern=bool(_GLOB.search(text)))
    if kind == "number":
        return Word.literal(text)
    if kind == "raw_string":
        return Word(text, text[1:-1], text[1:-1])
    if kind == "ansi_c_string":
        value = _decode_ansi(text[2:-1])
        return Word(text, value, value)
    if kind in ("string", "translated_string"):
        return _string_word(node, text)
    if kind == "concatenation":
        parts = [_word(child) for child in node.children]
        joined = (
            None if any(p.value is None for p in parts) else "".join(p.value or "" for p in parts)
        )
        worst = "".join(p.worst for p in parts)
        return Word(text, joined, worst, pattern=any(p.pattern for p in parts))
    if kind == "brace_expression":
        return Word(text, text, text, pattern=True)
    return Word(text, None, _expansion_worst(node))


def _assignment(node: Any) -> Assignment:
    """A `variable_assignment` node: `NAME=value`, `NAME[i]+=value`, `NAME=(…)`."""
    target = node.named_children[0] if node.named_children else node
    if target.type == "subscript" and target.named_children:
        target = target.named_children[0]
    values = [c for c in node.children[1:] if c.type not in ("=", "+=")]
    if not values:
        value = Word.literal("")
    elif values[0].type in _ARGUMENT_TYPES and len(values) == 1:
        value = word_of(values[0])
    else:  # an array `(…)` or something the grammar splits: known only when it runs
        value = Word("".join(_text(v) for v in values), None, "")
    return Assignment(_text(target), value)


def _assignment_word(node: Any) -> Word:
    """`NAME=value` of a declaration (`export NAME=value`) as one argument word."""
    assignment = _assignment(node)
    head = _text(node).partition("=")[0] + "="
    value = assignment.value.value
    return Word(_text(node), None if value is None else head + value, head)


def _joined(first: Word, second: Word) -> Word:
    """Two words that bash reads as one: `cu\\<newline>rl` is `curl`."""
    value = None if first.value is None or second.value is None else first.value + second.value
    return Word(
        f"{first.text}\\\n{second.text}",
        value,
        first.worst + second.worst,
        pattern=first.pattern or second.pattern,
    )


def _simple_command(node: Any, source: bytes, known: Known) -> SimpleCommand | None:
    words: list[Word] = []
    declaration = node.type in _DECLARATION_TYPES
    end = -1
    for child in node.children:
        if child.type == "command_name":
            inner = child.named_children
            word = word_of(inner[0] if inner else child, known)
        elif declaration and not words:
            word = Word.literal(_text(child))
        elif words and child.type in _ARGUMENT_TYPES:
            word = word_of(child, known)
        elif words and declaration and child.type == "variable_assignment":
            word = _assignment_word(child)
        elif words and declaration and child.type == "variable_name":
            word = Word.literal(_text(child))
        else:
            continue
        # the grammar splits a word at a line continuation; bash removes `\<newline>` first
        start = child.start_byte
        if words and start - end >= 2 and _CONTINUATIONS.fullmatch(source[end:start]):
            words[-1] = _joined(words[-1], word)
        else:
            words.append(word)
        end = child.end_byte
    return SimpleCommand(words, _text(node)) if words else None


def _syntax_error(root: Any) -> str:
    """Where the first ERROR or missing node is, for the denial message."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            row, column = node.start_point
            near = shown(_text(node), 40) or node.type
            what = f"missing {node.type!r}" if node.is_missing else f"near {near!r}"
            return f"syntax error at line {row + 1}, column {column + 1}, {what}"
        stack.extend(reversed(node.children))
    return "syntax error"


def _known(assignments: Sequence[Assignment]) -> dict[str, list[str]]:
    """The static values the line assigns to each variable (`X=/; rm -rf $X`)."""
    known: dict[str, list[str]] = {}
    for assignment in assignments:
        if assignment.value.value is not None:
            known.setdefault(assignment.name, []).append(assignment.value.value)
    return known


def parse_bash(command: str) -> ParsedLine:
    """Every simple command and redirection target of `command`, or its syntax error."""
    source = command.encode("utf-8", "surrogatepass")
    root = _parser().parse(source).root_node
    parsed = ParsedLine()
    if root.has_error:
        parsed.error = _syntax_error(root)
    commands: list[Any] = []
    targets: list[Any] = []
    stack = [root]
    while stack:  # iterative: a deeply nested line cannot exhaust the Python stack
        node = stack.pop()
        kind = node.type
        if kind == "command" or kind in _DECLARATION_TYPES:
            commands.append(node)
        elif kind == "variable_assignment":
            parsed.assignments.append(_assignment(node))
        elif kind in _QUOTED_TYPES:
            value = _word(node).value if b"[" in source[node.start_byte : node.end_byte] else None
            if value is not None and _SUBSCRIPT_CODE.search(value):
                parsed.subscripts.append(value)
        elif kind in _REDIRECT_TYPES:
            targets += [c for c in node.named_children if c.type in _ARGUMENT_TYPES]
        stack.extend(reversed(node.children))
    # words are read once every assignment is known: a loop may assign after the use
    known = _known(parsed.assignments)
    simple_commands = (_simple_command(node, source, known) for node in commands)
    parsed.commands = [simple for simple in simple_commands if simple is not None]
    parsed.redirects = [word_of(target, known) for target in targets]
    return parsed


__all__ = ["parse_bash", "word_of"]
