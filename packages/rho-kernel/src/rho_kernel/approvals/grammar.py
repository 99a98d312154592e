"""The options of a program that are known not to run anything: an allowlist, and the
reading of a command's words against it.

A `Grammar` lists a program's (or a subcommand's) safe options in three kinds: flags
(`-l`, `--oneline`), options that take a value (`-n 5`, `-n5`, `--max-count=5`,
`--max-count 5`) and options whose value can only be attached (`--color=always`, `-uno`;
alone they take none). `read_words` reads a command's arguments the way getopt and git's
parse-options do — short flags bundled (`-la`), options anywhere before `--` — and answers
None at the first word it cannot vouch for: an option not on the list, an abbreviation, a
value given to a flag, a separate value that looks like an option (the program might read
it as one), a subcommand not on the list, or an operand or value its checks refuse. What
is not listed is never read as safe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(slots=True)
class Reading:
    """A command's arguments as a grammar reads them: `options` as (name, value) pairs in
    order (value None for a flag), `operands`, and the words after `--` (None: no `--`)."""

    options: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    rest: list[str] | None = None

    def has(self, *names: str) -> bool:
        """Whether any of the options `names` was given."""
        return any(name in names for name, _ in self.options)


Check = Callable[[Reading], bool]
ValueCheck = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Grammar:
    """The safe options of one program or subcommand (see the module).

    `subcommands`: the first operand must name one, whose grammar reads the words after it
    (the options before it are this grammar's). `check` vouches for the reading as a whole
    (its operands, the words after `--`): by default any operand is data (a file, a
    pattern, a revision). `values` checks the values of some options. `numeric` accepts
    `-5` (a count, as `head -5` and `git log -5` read it). `single_dash` reads options as Go's
    flag package does: `-run`, `--run`, `-run=x` and `-run x` are one option, never a bundle
    (the spec names them with one dash)."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    attached: frozenset[str] = frozenset()
    subcommands: Mapping[str, Grammar] | None = None
    check: Check | None = None
    values: Mapping[str, ValueCheck] = field(default_factory=dict)
    numeric: bool = False
    single_dash: bool = False

    def extended(self, spec: str, **changes: object) -> Grammar:
        """This grammar with the options of `spec` (see `options`) added, and `changes`."""
        more = options(spec)
        fields: dict[str, object] = {
            "flags": self.flags | more.flags,
            "valued": self.valued | more.valued,
            "attached": self.attached | more.attached,
            "subcommands": self.subcommands,
            "check": self.check,
            "values": self.values,
            "numeric": self.numeric,
            "single_dash": self.single_dash,
        }
        fields.update(changes)
        return Grammar(**fields)  # type: ignore[arg-type]


def options(spec: str, **changes: object) -> Grammar:
    """A grammar from a spec of space-separated options: `-l` a flag, `-n=` an option that
    takes a value, `--color[=]` one whose value can only be attached."""
    flags: set[str] = set()
    valued: set[str] = set()
    attached: set[str] = set()
    for item in spec.split():
        if item.endswith("[=]"):
            attached.add(item[:-3])
        elif item.endswith("="):
            valued.add(item[:-1])
        else:
            flags.add(item)
    return Grammar(frozenset(flags), frozenset(valued), frozenset(attached), **changes)  # type: ignore[arg-type]


def any_operands(reading: Reading) -> bool:
    """The default check: every operand is data."""
    return True


def no_operands(reading: Reading) -> bool:
    """A check for a command that takes no operand."""
    return not reading.operands and not reading.rest


def read_words(grammar: Grammar, args: list[str]) -> Reading | None:
    """`args` read against `grammar` (and the grammars of its subcommands), or None when a
    word is not known to be safe (see the module)."""
    reading = Reading()
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--":
            reading.rest = args[index + 1 :]
            break
        if word.startswith("-") and word != "-":
            taken = _option(grammar, word, args[index + 1 :], reading)
            if taken is None:
                return None
            index += 1 + taken
            continue
        if grammar.subcommands is not None and not reading.operands:
            sub = grammar.subcommands.get(word)
            if sub is None or not _checked(grammar, reading):
                return None
            inner = read_words(sub, args[index + 1 :])
            return inner if inner is not None and _checked(sub, inner) else None
        reading.operands.append(word)
        index += 1
    return reading if _checked(grammar, reading) else None


def _checked(grammar: Grammar, reading: Reading) -> bool:
    for name, value in reading.options:
        check = grammar.values.get(name)
        if check is not None and (value is None or not check(value)):
            return False
    return (grammar.check or any_operands)(reading)


def _option(grammar: Grammar, word: str, following: list[str], reading: Reading) -> int | None:
    """Read the option `word` into `reading`: how many following words it took as its value
    (0 or 1), or None when it is not known to be safe."""
    if grammar.single_dash:
        word = "-" + word.lstrip("-")
        if word == "-":
            return None
    if word.startswith("--") or grammar.single_dash:
        name, equals, value = word.partition("=")
        if equals:
            if name in grammar.valued or name in grammar.attached:
                reading.options.append((name, value))
                return 0
            return None
        if name in grammar.flags or name in grammar.attached:
            reading.options.append((name, None))
            return 0
        if name in grammar.valued:
            return _separate(name, following, reading)
        return None
    if grammar.numeric and word[1:].isdigit():
        reading.options.append(("-n", word[1:]))
        return 0
    for position in range(1, len(word)):
        name = "-" + word[position]
        rest = word[position + 1 :]
        if name in grammar.flags:
            reading.options.append((name, None))
            continue
        if name in grammar.attached:
            reading.options.append((name, rest or None))
            return 0
        if name in grammar.valued:
            if rest:
                reading.options.append((name, rest))
                return 0
            return _separate(name, following, reading)
        return None
    return 0


def _separate(name: str, following: list[str], reading: Reading) -> int | None:
    """An option's value given as the next word: refused when there is none, or when it
    looks like an option (were the option to take no value there, the program would read
    that word as an option of its own)."""
    if not following or (following[0].startswith("-") and following[0] != "-"):
        return None
    reading.options.append((name, following[0]))
    return 1


__all__ = [
    "Check",
    "Grammar",
    "Reading",
    "ValueCheck",
    "any_operands",
    "no_operands",
    "options",
    "read_words",
]
