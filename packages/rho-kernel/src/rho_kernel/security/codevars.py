"""Variables whose value becomes code: a shell or git runs it later, out of the policy's sight.

`GIT_SSH_COMMAND='curl …' git fetch`, `export PROMPT_COMMAND=…`, `BASH_ENV=<(…) bash x.sh`,
`BASH_ALIASES[c]=curl`, `GIT_CONFIG_KEY_0=core.pager …` and `env 'BASH_FUNC_ls%%=() { … }'`
each hand text to a program that runs it as code. `variable_code` says what the policy
checks of such an assignment, wherever it is written: before a command, on its own, after
`export`/`declare`/`local`/`readonly`/`typeset`, or as an `env`/`sudo` argument.
"""

from __future__ import annotations

import itertools
import re

from rho_kernel.security.inner import Inner, InnerLine, Opaque
from rho_kernel.security.shellwords import Word

#: Variables holding a command line that a program runs with `sh -c` (or as a program).
COMMAND_VARIABLES: frozenset[str] = frozenset(
    {"PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR"}
    | {"GIT_PAGER", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_PROXY_COMMAND"}
    | {"GIT_EXTERNAL_DIFF", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE"}
)
#: Prompt strings: their command substitutions run whenever the prompt is shown (`PS4`
#: under `set -x`).
PROMPT_VARIABLES: frozenset[str] = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4"})
#: Variables that name a file of code, bind names to code, or set git configuration (which
#: can name commands git runs): never checkable.
OPAQUE_VARIABLES: frozenset[str] = frozenset(
    {"BASH_ENV", "ENV", "BASH_ALIASES", "BASH_CMDS", "BASHOPTS", "LD_PRELOAD", "LD_AUDIT"}
    | {"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL"}
    | {"GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR"}
)
_OPAQUE_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "BASH_FUNC_")
_PROMPT_CODE = re.compile(r"\$\(|`|\$\{[\s|]")
# `BASH_FUNC_name%%=() { …; }` is how bash imports a function from the environment
_ASSIGNMENT_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:%%)?)(?:\[[^=]*\])?\+?=(.*)$", re.DOTALL)


def is_code_variable(name: str) -> bool:
    """Whether a value assigned to `name` becomes code (see the module)."""
    return (
        name in COMMAND_VARIABLES
        or name in PROMPT_VARIABLES
        or name in OPAQUE_VARIABLES
        or name.startswith(_OPAQUE_PREFIXES)
    )


def variable_code(name: str, value: Word) -> Inner | None:
    """What assigning `value` to `name` runs later: a line to check, code that cannot be
    checked, or None for an ordinary variable."""
    if not is_code_variable(name):
        return None
    what = f"{name}=…"
    if name in COMMAND_VARIABLES:
        if value.value is None:
            return InnerLine(None, "bash", what)
        # LESSOPEN/LESSCLOSE start with `|` (a pipe preprocessor)
        return InnerLine(value.value.lstrip("| \t"), "bash", what)
    if name in PROMPT_VARIABLES:
        if value.value is None or _PROMPT_CODE.search(value.value):
            return Opaque(f"the prompt string {name} runs its command substitutions when shown")
        return None
    return Opaque(f"{name} makes code run that is not on the command line")


def assignment_in_word(word: Word) -> tuple[str, Word] | None:
    """`NAME=value` given as one argument (`env 'X=y' …`, `export "X=y"`): the name and the
    value, or None. A word whose name part is computed at run time is not one."""
    text = word.value
    if text is None:
        text = word.text if "=" in word.text.partition("$")[0] else None
        if text is None:
            return None
        match = _ASSIGNMENT_WORD.match(text.strip("\"'"))
        return (match.group(1), Word(text, None, "")) if match else None
    match = _ASSIGNMENT_WORD.match(text)
    if match is None:
        return None
    return match.group(1), Word.literal(match.group(2))


def variables_named(name: str, args: list[Word]) -> list[str]:
    """The variables that `read`, `printf -v` or `mapfile`/`readarray` assign with `args`;
    only code variables are returned."""
    names: list[str] = []
    values = [w.value for w in args if w.value is not None]
    if name == "printf":
        for index, value in enumerate(values):
            if value == "-v" and index + 1 < len(values):
                names.append(values[index + 1])
            elif value.startswith("-v") and len(value) > 2:
                names.append(value[2:])
    elif name in ("read", "mapfile", "readarray"):
        names = values
    bases = (n.partition("[")[0] for n in names)
    return [base for base in bases if is_code_variable(base)]


def _nameref(name: str, args: list[Word]) -> bool:
    """`declare -n`/`local -n`/`typeset -n`: a later assignment to the reference sets
    whatever variable it names, which may be set at run time too."""
    if name not in ("declare", "typeset", "local"):
        return False
    for word in args:
        value = word.value or ""
        if value == "--" or not value.startswith("-"):
            break
        if "n" in value[1:]:
            return True
    return False


#: Commands whose arguments may be assignments (`env X=y cmd`, `export X=y`).
_ASSIGNING = frozenset({"env", "sudo", "export", "declare", "typeset", "local", "readonly"})


def argument_code(name: str, args: list[Word]) -> list[Inner]:
    """What the command `name` (normalised) hands to code through variables: the values it
    assigns as arguments, and the code variables it fills or refers to by name."""
    found: list[Inner] = [
        Opaque(f"'{name}' assigns {variable}, whose value becomes code, at run time")
        for variable in variables_named(name, args)
    ]
    if name == "printf" and any(
        a.value == "-v" and b.value is None for a, b in itertools.pairwise(args)
    ):
        found.append(Opaque("'printf -v' assigns a variable named only when it runs"))
    if _nameref(name, args):
        found.append(Opaque(f"'{name} -n' lets a later assignment set any variable"))
    if name not in _ASSIGNING:
        return found
    for word in args:
        split = assignment_in_word(word)
        if split is not None:
            inner = variable_code(*split)
            found += [inner] if inner is not None else []
        elif word.value is None and "=" in word.text and name != "env" and name != "sudo":
            found.append(Opaque(f"the variable '{name}' assigns is only known when it runs"))
    return found


__all__ = [
    "COMMAND_VARIABLES",
    "OPAQUE_VARIABLES",
    "PROMPT_VARIABLES",
    "argument_code",
    "assignment_in_word",
    "is_code_variable",
    "variable_code",
    "variables_named",
]
