"""Commands that run other commands: what they run, so the policy can check it too.

`sudo curl`, `env X=1 curl`, `timeout 5 curl`, `xargs curl`, `find -exec curl {} ;`,
`bash -c 'curl …'`, `pwsh -Command …`, `eval …` and their kin each hide the command that
really runs behind their own name. `inner_commands` returns it: an argument vector (checked
as a simple command) or a line of shell text (parsed and checked in full).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from rho_kernel.security.codetext import builtin_code, pwsh_builtin_code, script_operand
from rho_kernel.security.codevars import argument_code
from rho_kernel.security.gitcode import git_code
from rho_kernel.security.inner import (
    Inner,
    InnerArgv,
    InnerLine,
    Opaque,
    ReadsStdin,
)
from rho_kernel.security.inner import (
    joined_line as _joined,
)
from rho_kernel.security.inner import (
    options_end as _options_end,
)
from rho_kernel.security.launchers import launcher_code
from rho_kernel.security.shellwords import Word

#: Shells whose `-c STRING` is a bash-like line.
POSIX_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "rbash"})
PWSH_SHELLS = frozenset({"pwsh", "powershell", "pwsh-preview"})


# option → takes a value, for the wrappers whose options are skipped to find the command
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "sudo": frozenset(
        {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"}
        | {"--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user"}
        | {"--command-timeout"}
    ),
    "doas": frozenset({"-u", "-C"}),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "setsid": frozenset(),
    "builtin": frozenset(),
    "coproc": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "-u"}),
    "xargs": frozenset(
        {"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P"}
        | {"--max-procs", "-s", "--max-chars", "--process-slot-var"}
    ),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "taskset": frozenset(),
    "chroot": frozenset({"--userspec", "--groups"}),
    "unbuffer": frozenset(),
    "busybox": frozenset(),
}
#: Wrappers that take one positional argument (a duration, a CPU mask, a directory)
#: before the command.
_LEADING_POSITIONAL = frozenset({"timeout", "taskset", "chroot"})
_PWSH_VALUE_PARAMS = (
    "-executionpolicy",
    "-workingdirectory",
    "-outputformat",
    "-inputformat",
    "-windowstyle",
    "-configurationname",
    "-custompipename",
    "-settingsfile",
)


def _skip_assignments(args: list[Word], start: int) -> int:
    while start < len(args):
        value = args[start].value
        name, eq, _ = (value or "").partition("=")
        if not eq or not name.replace("_", "a").isalnum():
            break
        start += 1
    return start


def _env_split(args: list[Word]) -> InnerLine | None:
    """`env -S STRING …` / `--split-string=STRING`: the string is split into a command."""
    index = 0
    while index < len(args):
        value = args[index].value
        if value is None or not value.startswith("-") or value in ("-", "--"):
            return None
        if value in ("-S", "--split-string"):
            return _joined(args[index + 1 :], "bash", "env -S")
        for prefix in ("--split-string=", "-S"):
            if value.startswith(prefix):
                first = Word.literal(value[len(prefix) :])
                return _joined([first, *args[index + 1 :]], "bash", "env -S")
        index += 2 if value in _VALUE_OPTIONS["env"] else 1
    return None


def _fed(word: Word, worst: str = "") -> Word:
    """`word` with input substituted into it at run time: known only when it runs."""
    return Word(word.text, None, worst)


#: What xargs appends to the command: the items it reads, known only at run time.
_XARGS_ITEMS = Word("…", None, "")


def _xargs(args: list[Word]) -> list[Inner]:
    """`xargs [options] [COMMAND …]`: the items read from input are appended to the
    command, or put where the `-I`/`-i`/`--replace` string is (also in its name)."""
    start = _options_end(args, _VALUE_OPTIONS["xargs"])
    replace: str | None = ""
    for index, word in enumerate(args[:start]):
        value = word.value or ""
        if value == "-I" and index + 1 < start:
            replace = args[index + 1].value
        elif value.startswith(("-I", "-i")) and len(value) > 2:
            replace = value[2:]
        elif value in ("-i", "--replace"):
            replace = "{}"
        elif value.startswith("--replace="):
            replace = value.partition("=")[2]
    rest = args[start:]
    if not rest:
        return []  # runs echo
    if replace == "":
        return [InnerArgv([*rest, _XARGS_ITEMS])]
    return [InnerArgv([_fed(w) if replace is None or replace in w.text else w for w in rest])]


def _wrapped(name: str, args: list[Word]) -> list[Inner]:
    """The argv behind a wrapper of `_VALUE_OPTIONS`."""
    if name == "env" and (split := _env_split(args)) is not None:
        return [split]
    if name == "xargs":
        return _xargs(args)
    start = _options_end(args, _VALUE_OPTIONS[name])
    if name in ("env", "sudo"):
        start = _skip_assignments(args, start)
    if name in _LEADING_POSITIONAL:
        start += 1
    rest = args[start:]
    return [InnerArgv(rest)] if rest else []


def _command_builtin(args: list[Word]) -> list[Inner]:
    """`command [-pvV] name …`: with -v or -V nothing runs."""
    start = _options_end(args, frozenset())
    flags = "".join((w.value or "")[1:] for w in args[:start] if w.value != "--")
    if "v" in flags or "V" in flags:
        return []
    return [InnerArgv(args[start:])] if args[start:] else []


def _find_exec(args: list[Word]) -> list[Inner]:
    """The commands of `find … -exec|-execdir|-ok|-okdir CMD … ;|+`."""
    found: list[Inner] = []
    index = 0
    while index < len(args):
        if args[index].value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and args[end].value not in (";", "+"):
                end += 1
            # `{}` is a path found at run time (a command name too: `-exec {} \;`)
            words = args[index + 1 : end]
            found.append(InnerArgv([_fed(w, w.text) if "{}" in w.text else w for w in words]))
            index = end
        index += 1
    return [inner for inner in found if isinstance(inner, InnerArgv) and inner.words]


def _shell(name: str, args: list[Word]) -> list[Inner]:
    """`bash [options] -c STRING …`, `bash script …` or (no script) commands from stdin."""
    index, command_flag, stdin_flag = 0, False, False
    found: list[Inner] = []
    while index < len(args):
        value = args[index].value
        if value is None or value in ("-", "--") or not value.startswith(("-", "+")):
            break
        if value in ("--rcfile", "--init-file") and index + 1 < len(args):
            rcfile = script_operand(args[index + 1], f"{name} {value}")
            found += [rcfile] if rcfile is not None else []
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if not value.startswith("--"):
            command_flag = command_flag or "c" in value[1:]
            stdin_flag = stdin_flag or "s" in value[1:]
        index += 1
    if index < len(args) and args[index].value in ("-", "--"):
        stdin_flag = stdin_flag or args[index].value == "-"
        index += 1
    if command_flag and index < len(args):
        found.append(_joined([args[index]], "bash", f"{name} -c"))
    elif stdin_flag or (not command_flag and index >= len(args)):
        found.append(ReadsStdin())
    elif not command_flag and (script := script_operand(args[index], name)) is not None:
        found.append(script)
    return found


def _pwsh_param(value: str) -> str | None:
    lowered = value.lower()
    if lowered.startswith("/") and "/" not in lowered[1:]:
        lowered = "-" + lowered[1:]
    return lowered if lowered.startswith("-") and len(lowered) >= 2 else None


def _decode_encoded(word: Word) -> InnerLine:
    try:
        text = base64.b64decode(word.value or "", validate=True).decode("utf-16-le")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return InnerLine(None, "pwsh", "-EncodedCommand (not valid base64 UTF-16)")
    return InnerLine(text, "pwsh", "-EncodedCommand")


def _pwsh(name: str, args: list[Word]) -> list[Inner]:
    """`pwsh -Command …`, `-EncodedCommand …`, `-File …`; no command reads stdin."""
    index = 0
    while index < len(args):
        param = _pwsh_param(args[index].value or "") if args[index].value else None
        if param is None:
            if name == "powershell":  # Windows PowerShell: a bare argument starts -Command
                return [_joined(args[index:], "pwsh", f"{name} command")]
            return []  # PowerShell 7: a bare argument is a script file
        if "-command".startswith(param):
            rest = args[index + 1 :]
            if not rest or rest[0].value == "-":
                return [ReadsStdin()]
            return [_joined(rest, "pwsh", f"{name} -Command")]
        if "-encodedcommand".startswith(param) or param == "-ec":
            return [_decode_encoded(args[index + 1])] if index + 1 < len(args) else []
        if "-file".startswith(param) and len(param) >= 2:
            return []
        index += 2 if any(p.startswith(param) for p in _PWSH_VALUE_PARAMS) else 1
    return [ReadsStdin()]


def _cmd(args: list[Word]) -> list[Inner]:
    """`cmd /c …` or `cmd /k …`: the rest of the line (checked like PowerShell text)."""
    for index, word in enumerate(args):
        if (word.value or "").lower() in ("/c", "/k", "/r"):
            return [_joined(args[index + 1 :], "pwsh", "cmd /c")]
    return []


def _watch(args: list[Word]) -> list[Inner]:
    start = _options_end(args, frozenset({"-n", "--interval", "-d", "--differences"}))
    exec_flag = any(w.value in ("-x", "--exec") for w in args[:start])
    rest = args[start:]
    if not rest:
        return []
    return [InnerArgv(rest)] if exec_flag else [_joined(rest, "bash", "watch")]


def _flock(args: list[Word]) -> list[Inner]:
    for index, word in enumerate(args):
        if word.value in ("-c", "--command") and index + 1 < len(args):
            return [_joined([args[index + 1]], "bash", "flock -c")]
    start = _options_end(args, frozenset({"-w", "--wait", "--timeout", "-E"})) + 1
    return [InnerArgv(args[start:])] if args[start:] else []


def _su(args: list[Word]) -> list[Inner]:
    for index, word in enumerate(args):
        value = word.value or ""
        if value in ("-c", "--command", "--session-command") and index + 1 < len(args):
            return [_joined([args[index + 1]], "bash", "su -c")]
        if value.startswith("--command="):
            return [_joined([Word.literal(value.partition("=")[2])], "bash", "su -c")]
    return []


_RUNUSER_VALUE_OPTIONS = frozenset(
    {"-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w"}
    | {"--whitelist-environment"}
)


def _runuser(args: list[Word]) -> list[Inner]:
    """`runuser -c LINE …` like `su`, or `runuser -u USER [--] COMMAND …` (an argv)."""
    if line := _su(args):
        return line
    start = _options_end(args, _RUNUSER_VALUE_OPTIONS)
    user_form = any(w.value in ("-u", "--user") for w in args[:start])
    return [InnerArgv(args[start:])] if user_form and args[start:] else []


def inner_commands(name: str, args: list[Word], shell: str) -> list[Inner]:
    """What the command `name` (normalised: lower-case base name) runs with `args`."""
    found = argument_code(name, args) if shell == "bash" else pwsh_builtin_code(name, args)
    return found + _runs(name, args, shell)


def _runs(name: str, args: list[Word], shell: str) -> list[Inner]:
    if name in _VALUE_OPTIONS:
        return _wrapped(name, args)
    if name == "git":
        return git_code(args)
    if (launched := launcher_code(name, args)) is not None:
        return launched
    if shell == "bash" and (code := builtin_code(name, args)) is not None:
        return code
    if name == "command":
        return _command_builtin(args)
    if name in POSIX_SHELLS:
        return _shell(name, args)
    if name in PWSH_SHELLS:
        return _pwsh("powershell" if name == "powershell" else "pwsh", args)
    if name == "eval" or (shell == "pwsh" and name in ("invoke-expression", "iex")):
        return [_joined(args, shell, name)] if args else []
    handler = _SPECIAL.get(name)
    return handler(args) if handler else []


_SPECIAL: dict[str, Callable[[list[Word]], list[Inner]]] = {
    "find": _find_exec,
    "cmd": _cmd,
    "watch": _watch,
    "flock": _flock,
    "su": _su,
    "runuser": _runuser,
}


__all__ = [
    "POSIX_SHELLS",
    "PWSH_SHELLS",
    "Inner",
    "InnerArgv",
    "InnerLine",
    "Opaque",
    "ReadsStdin",
    "inner_commands",
]
