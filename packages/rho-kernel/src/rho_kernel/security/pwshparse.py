"""A careful tokenizer for PowerShell lines (there is no PowerShell grammar to lean on).

It splits a line into statements at `;`, `|`, `&&`, `||`, newlines and every bracket that
opens or closes a nested block (`( )`, `{ }`, `$( )`, `@( )`), removes quoting (`'…'` with
`''`, `"…"` with backtick escapes and `""`, here-strings) and backtick escapes in bare
words (`` c`url `` is `curl`), drops comments (`#…`, `<#…#>`), and checks the inside of
`$(…)` in strings as statements of their own. A statement names a command when it starts
with a bare word or with the call operators `&`/`.`; one starting with a variable, a
literal or a `[type]` is an expression. Limits: expressions are not evaluated (`& ('cu' +
'rl')` is dynamic, hence refused by the policy), and an unterminated string or bracket is a
syntax error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rho_kernel.security.shellwords import ParsedLine, SimpleCommand, Word

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "e": "\x1b"}
_OPENING = frozenset({"(", "{", "$(", "@(", "@{"})
#: How deep `$(…)` inside strings may nest before the line is refused.
MAX_NESTING = 8
_SEPARATORS = frozenset({";", "|", "&&", "||", "\n", "(", ")", "{", "}", "&"})
_KEYWORDS = frozenset(
    {
        "if",
        "elseif",
        "else",
        "foreach",
        "for",
        "while",
        "do",
        "until",
        "switch",
        "try",
        "catch",
        "finally",
        "trap",
        "param",
        "begin",
        "process",
        "end",
        "return",
        "throw",
        "exit",
        "break",
        "continue",
        "data",
    }
)
_NAMING_KEYWORDS = frozenset({"function", "filter", "workflow", "class", "enum"})
_ASSIGNMENT = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "??="})
_ASSIGNMENT_BY_LENGTH = sorted(_ASSIGNMENT, key=len, reverse=True)
_WORD_END = frozenset(" \t\r\n;|&(){}")


@dataclass(slots=True)
class _Token:
    text: str
    value: str | None
    quoted: bool = False
    separator: bool = False


@dataclass(slots=True)
class _Scanner:
    line: str
    pos: int = 0
    tokens: list[_Token] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)  # `$(…)` bodies inside strings

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.line[index] if index < len(self.line) else ""


class PwshSyntaxError(ValueError):
    """The line has an unterminated string, comment or bracket."""


def _skip_block_comment(s: _Scanner) -> None:
    end = s.line.find("#>", s.pos + 2)
    if end < 0:
        raise PwshSyntaxError("unterminated block comment '<#'")
    s.pos = end + 2


def _matching_paren(line: str, start: int) -> int:
    """The index of the `)` closing the `(` at `start`, skipping quoted text."""
    depth, index = 0, start
    while index < len(line):
        char = line[index]
        if char in "'\"":
            close = line.find(char, index + 1)
            if close < 0:
                break
            index = close
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise PwshSyntaxError("unterminated '$(' in a string")


def _single_quoted(s: _Scanner) -> str:
    out: list[str] = []
    s.pos += 1
    while True:
        char = s.peek()
        if not char:
            raise PwshSyntaxError("unterminated single-quoted string")
        s.pos += 1
        if char == "'":
            if s.peek() != "'":
                return "".join(out)
            s.pos += 1
        out.append(char)


def _double_quoted(s: _Scanner) -> tuple[str, bool]:
    """The string's value and whether it expands something (`$x`, `$(…)`)."""
    out, dynamic, s.pos = [], False, s.pos + 1
    while True:
        char = s.peek()
        if not char:
            raise PwshSyntaxError("unterminated double-quoted string")
        s.pos += 1
        if char == "`" and s.peek():
            out.append(_ESCAPES.get(s.peek(), s.peek()))
            s.pos += 1
        elif char == '"':
            if s.peek() != '"':
                return "".join(out), dynamic
            out.append('"')
            s.pos += 1
        elif char == "$" and s.peek() == "(":
            close = _matching_paren(s.line, s.pos)
            s.nested.append(s.line[s.pos + 1 : close])
            s.pos, dynamic = close + 1, True
        else:
            dynamic = dynamic or (char == "$" and (s.peek().isalnum() or s.peek() in "_{:?"))
            out.append(char)


def _here_string(s: _Scanner) -> tuple[str, bool]:
    quote = s.peek(1)
    end = s.line.find("\n" + quote + "@", s.pos + 2)
    if end < 0:
        raise PwshSyntaxError("unterminated here-string")
    body = s.line[s.pos + 2 : end].lstrip("\r\n")
    s.pos = end + 3
    return body, quote == '"' and "$" in body


def _assignment_follows(s: _Scanner) -> bool:
    return any(s.line.startswith(op, s.pos) for op in _ASSIGNMENT)


def _bare_word(s: _Scanner) -> tuple[str, bool]:
    out, dynamic = [], False
    variable = s.peek() == "$"
    while (char := s.peek()) and char not in _WORD_END:
        if variable and char in "=+-*/%?" and _assignment_follows(s):
            break
        if char == "`" and s.peek(1):
            out.append(s.peek(1))
            s.pos += 2
            continue
        if char in "'\"":
            value, inner = (_single_quoted(s), False) if char == "'" else _double_quoted(s)
            out.append(value)
            dynamic = dynamic or inner
            continue
        dynamic = dynamic or char == "$"
        out.append(char)
        s.pos += 1
    return "".join(out), dynamic


def _next_token(s: _Scanner) -> None:
    char, start = s.peek(), s.pos
    two = s.line[s.pos : s.pos + 2]
    if two in ("&&", "||", "$(", "@(", "@{"):
        s.tokens.append(_Token(two, two, separator=True))
        s.pos += 2
    elif char in "\n;|&(){}":
        s.tokens.append(_Token(char, char, separator=True))
        s.pos += 1
    elif two in ("@'", '@"'):
        value, dynamic = _here_string(s)
        s.tokens.append(_Token(s.line[start : s.pos], None if dynamic else value, quoted=True))
    elif char == "'":
        value = _single_quoted(s)
        s.tokens.append(_Token(s.line[start : s.pos], value, quoted=True))
    elif char == '"':
        value, dynamic = _double_quoted(s)
        s.tokens.append(_Token(s.line[start : s.pos], None if dynamic else value, quoted=True))
    elif (op := _assignment_at(s)) is not None:
        s.tokens.append(_Token(op, op))
        s.pos += len(op)
    else:
        value, dynamic = _bare_word(s)
        s.tokens.append(_Token(s.line[start : s.pos], None if dynamic else value))


def _assignment_at(s: _Scanner) -> str | None:
    """An assignment operator right after a variable (`$x=…`, `$x += …`)."""
    if not s.tokens or not s.tokens[-1].text.startswith("$"):
        return None
    return next((op for op in _ASSIGNMENT_BY_LENGTH if s.line.startswith(op, s.pos)), None)


def _tokenize(line: str) -> _Scanner:
    s = _Scanner(line)
    while s.pos < len(line):
        char = s.peek()
        if char in " \t\r" or (char == "`" and s.peek(1) == "\n"):
            s.pos += 1 if char != "`" else 2
        elif char == "#":
            end = line.find("\n", s.pos)
            s.pos = len(line) if end < 0 else end
        elif line.startswith("<#", s.pos):
            _skip_block_comment(s)
        else:
            _next_token(s)
    return s


def _statements(tokens: list[_Token]) -> list[list[_Token]]:
    """Tokens grouped into statements; a lone `&` first in a statement is the call operator."""
    groups: list[list[_Token]] = [[]]
    for token in tokens:
        if token.separator and not (token.text == "&" and not groups[-1]):
            groups.append([])
        else:
            groups[-1].append(token)
    return [group for group in groups if group]


def _command_words(group: list[_Token]) -> list[_Token] | None:
    """The tokens naming a command and its arguments, or None for an expression."""
    tokens = list(group)
    if len(tokens) >= 2 and tokens[0].value is None and tokens[1].text in _ASSIGNMENT:
        tokens = tokens[2:]  # `$x = curl …` runs `curl …`
    while tokens and not tokens[0].quoted and (tokens[0].value or "").lower() in _KEYWORDS:
        tokens = tokens[1:]
    if tokens and not tokens[0].quoted and (tokens[0].value or "").lower() in _NAMING_KEYWORDS:
        return None
    if not tokens:
        return None
    if tokens[0].text in ("&", ".") and not tokens[0].quoted:
        return tokens[1:] or None  # the call operator: whatever follows is run
    first = tokens[0]
    if first.quoted or first.value is None or first.text.startswith(("[", "$", "@")):
        return None
    if first.value[:1].isdigit() or first.value.startswith("-"):
        return None
    return tokens


def _word(token: _Token) -> Word:
    if token.value is None:
        worst = "~" if token.text.lower() in ("$home", "$env:userprofile", "$env:home") else ""
        return Word(token.text, None, worst)
    return Word(token.text, token.value, token.value)


def parse_pwsh(line: str, _depth: int = 0) -> ParsedLine:
    """Every command statement of a PowerShell `line` (those in `$(…)` of strings too)."""
    parsed = ParsedLine()
    if _depth > MAX_NESTING:
        parsed.error = f"'$(…)' nested more than {MAX_NESTING} levels deep"
        return parsed
    try:
        scanner = _tokenize(line)
    except PwshSyntaxError as exc:
        parsed.error = str(exc)
        return parsed
    opening = sum(1 for t in scanner.tokens if t.separator and t.text in _OPENING)
    closing = sum(1 for t in scanner.tokens if t.separator and t.text in (")", "}"))
    if opening != closing:
        parsed.error = "unbalanced brackets"
    for group in _statements(scanner.tokens):
        words = _command_words(group)
        if words:
            text = " ".join(t.text for t in group)
            parsed.commands.append(SimpleCommand([_word(t) for t in words], text))
    for body in scanner.nested:
        inner = parse_pwsh(body, _depth + 1)
        parsed.commands.extend(inner.commands)
        parsed.error = parsed.error or inner.error
    return parsed


__all__ = ["PwshSyntaxError", "parse_pwsh"]
