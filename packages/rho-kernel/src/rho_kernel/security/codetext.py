"""bash builtins that turn text into code, and script operands whose text is computed.

`trap 'curl …' EXIT` runs its first argument as a command line when the signal comes;
`mapfile -C CALLBACK` evaluates CALLBACK; `alias c=curl` makes text part of a later command;
`hash -p /usr/bin/curl c` and `enable -f lib.so name` bind a name to other code; `shopt -s
expand_aliases` turns aliases on; `bash <(…)`, `source <(…)` and `. /dev/fd/3` run the output
of a command as a script. `builtin_code` says what the policy checks of each: a line it parses
and checks like `eval`'s, or code it cannot check.
"""

from __future__ import annotations

import re

from rho_kernel.security.codevars import is_code_variable
from rho_kernel.security.inner import Inner, InnerLine, Opaque, ReadsStdin, options_end
from rho_kernel.security.shellwords import Word

#: Script paths that are standard input, and ones that are another open descriptor (such
#: as a process substitution's).
_STDIN_PATH = re.compile(r"^/(?:dev/stdin|dev/fd/0|proc/(?:self|\d+|thread-self)/fd/0)$")
_FD_PATH = re.compile(r"^/(?:dev/fd|proc/(?:self|\d+|thread-self)/fd)(?:/|$)")


def _flags(args: list[Word]) -> str:
    """The letters of the leading short options of `args` (`-p -s` → "ps")."""
    letters = ""
    for word in args:
        value = word.value or ""
        if value == "--" or not value.startswith("-") or value == "-":
            break
        letters += value[1:]
    return letters


def script_operand(word: Word, what: str) -> Inner | None:
    """The script a shell or `source` runs from the file `word`: None for an ordinary file
    (a script is the model's own program, like any other), otherwise standard input or
    code the policy cannot see (a process substitution, an open descriptor)."""
    if word.text.startswith(("<(", ">(")):
        return Opaque(f"the script run by '{what} <(…)' is the output of a command")
    value = word.value
    if value is None:
        # `"$DIR/build.sh"` names a file; `"$F"` or `"$D/3"` may be /dev/fd/3 at run time
        tail = word.worst.rpartition("/")[2]
        if not tail or tail.isdigit() or tail == "stdin":
            return Opaque(f"the script run by '{what}' is only named when it runs")
        return None
    if _STDIN_PATH.match(value):
        return ReadsStdin()
    if _FD_PATH.match(value):
        return Opaque(f"the script run by '{what} {value}' is an open descriptor's contents")
    return None


def _trap(args: list[Word]) -> list[Inner]:
    """`trap [-lpP] [[ACTION] SIGNAL …]`: ACTION is a command line run on the signal."""
    if _flags(args) and args[0].value != "--":
        return []
    rest = args[1:] if args and args[0].value == "--" else args
    if len(rest) < 2 or rest[0].value == "-":
        return []  # lists, or resets a signal
    return [InnerLine(rest[0].value, "bash", "trap")]


def _source(name: str, args: list[Word]) -> list[Inner]:
    """`source [-p PATH] FILE …` (`-p` since bash 5.3) and `. FILE …`."""
    rest = args[options_end(args, frozenset({"-p"})) :]
    inner = script_operand(rest[0], name) if rest else None
    return [inner] if inner is not None else []


def _alias(args: list[Word]) -> list[Inner]:
    for word in args:
        if word.value is None or "=" in word.value:
            return [Opaque("'alias' makes text part of a later command")]
    return []


def _mapfile(name: str, args: list[Word]) -> list[Inner]:
    for index, word in enumerate(args):
        value = word.value if word.value is not None else word.worst
        if word.value is None and value.startswith("-C"):
            return [InnerLine(None, "bash", f"{name} -C")]
        if value == "-C" and index + 1 < len(args):
            return [InnerLine(args[index + 1].value, "bash", f"{name} -C")]
        if value.startswith("-C") and len(value) > 2:
            return [InnerLine(value[2:], "bash", f"{name} -C")]
    return []


def _shopt(args: list[Word]) -> list[Inner]:
    if "s" not in _flags(args):
        return []
    if any(w.value is None or w.value == "expand_aliases" for w in args):
        return [Opaque("'shopt -s expand_aliases' makes aliases, text, part of later commands")]
    return []


#: PowerShell commands that bind a name to other code.
_PWSH_ALIASES = frozenset({"set-alias", "new-alias", "sal", "nal", "import-alias", "ipal"})
_PWSH_ITEM_COMMANDS = frozenset({"set-item", "new-item", "si", "ni", "set-content", "sc"})
_PWSH_CODE_DRIVES = re.compile(r"^(?:alias|function):", re.IGNORECASE)
_PWSH_ENV_DRIVE = re.compile(r"^env:\\?([A-Za-z_][A-Za-z0-9_%]*)$", re.IGNORECASE)
#: `Add-Type -AssemblyName …` loads a library; any other use compiles source text.
_ASSEMBLY_NAME = frozenset({"-assemblyname", "-an"})


def pwsh_builtin_code(name: str, args: list[Word]) -> list[Inner]:
    """The code a PowerShell command binds to a name: `Set-Alias c curl.exe`, `Set-Item
    function:f …` (`name` is lower-case)."""
    if name in _PWSH_ALIASES:
        return [Opaque(f"'{name}' makes a name run another command")]
    if name in _PWSH_ITEM_COMMANDS and any(_PWSH_CODE_DRIVES.match(w.value or "") for w in args):
        return [Opaque(f"'{name}' on the alias: or function: drive binds a name to code")]
    if name in _PWSH_ITEM_COMMANDS and any(
        (m := _PWSH_ENV_DRIVE.match(w.value or "")) and is_code_variable(m.group(1).upper())
        for w in args
    ):
        return [Opaque(f"'{name}' on the env: drive sets a variable whose value becomes code")]
    if name == "add-type" and (not args or (args[0].value or "").lower() not in _ASSEMBLY_NAME):
        return [Opaque("'Add-Type' compiles source code")]
    return []


def builtin_code(name: str, args: list[Word]) -> list[Inner] | None:
    """The code the bash builtin `name` runs from its arguments' text, or None when `name`
    is none of those (see the module)."""
    if name == "trap":
        return _trap(args)
    if name in ("source", "."):
        return _source(name, args)
    if name == "alias":
        return _alias(args)
    if name in ("mapfile", "readarray"):
        return _mapfile(name, args)
    if name == "shopt":
        return _shopt(args)
    if name == "hash" and "p" in _flags(args):
        return [Opaque("'hash -p' makes a name run another program")]
    if name == "enable" and "f" in _flags(args):
        return [Opaque("'enable -f' loads a builtin's code from a shared library")]
    return None


__all__ = ["builtin_code", "pwsh_builtin_code", "script_operand"]
