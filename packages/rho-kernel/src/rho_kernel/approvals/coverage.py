"""Whether a prefix rule may cover a command longer than its own words.

`run_command(git grep:*)` must not run `git grep -O'sh -c …' foo`: a program's options can
make it run other programs, and no list of the options that do is ever complete. So a rule
covers more words than its own only when the whole command is **known to be safe**: its
program is one whose safe options are listed (`safe_git`, `safe_tools`, and `find`), it
is named without a directory (as found on `PATH`), and every word reads against that list
(`grammar`) — a flag, an option with its value, a subcommand or an operand its checks
accept (`scripts`: sed scripts, awk programs, find expressions). Anything else, a program
not listed among them, and the rule covers exactly its own words.
"""

from __future__ import annotations

from collections.abc import Sequence

from rho_kernel.approvals.grammar import Grammar, read_words
from rho_kernel.approvals.safe_git import GIT
from rho_kernel.approvals.safe_tools import PROGRAMS
from rho_kernel.approvals.scripts import safe_find_arguments


def grammar_of(program: str) -> Grammar | None:
    """The safe options of `program` (a name without a directory), or None when they are
    not listed."""
    return GIT if program == "git" else PROGRAMS.get(program)


def known_safe(words: Sequence[str]) -> bool:
    """Whether the command `words` (program first, quotes removed) is known to run no
    other program than its own (see the module)."""
    if not words or not words[0] or "/" in words[0] or "\\" in words[0]:
        return False
    program, args = words[0], list(words[1:])
    if program == "find":
        return safe_find_arguments(args)
    grammar = grammar_of(program)
    if grammar is None:
        return False
    if program == "tar":
        spelled = _tar_old_style(grammar, args)
        if spelled is None:
            return False
        args = spelled
    return read_words(grammar, args) is not None


def _tar_old_style(grammar: Grammar, args: list[str]) -> list[str] | None:
    """`tar xzf a.tgz` spelled as `tar -x -z -f a.tgz` (the letters' values follow the
    first word in order); None when a letter that takes a value has none."""
    if not args or args[0].startswith("-") or not args[0].isalpha():
        return args
    letters, rest = args[0], args[1:]
    spelled: list[str] = []
    for letter in letters:
        spelled.append("-" + letter)
        if "-" + letter in grammar.valued:
            if not rest:
                return None
            spelled.append(rest.pop(0))
    return spelled + rest


__all__ = ["grammar_of", "known_safe"]
