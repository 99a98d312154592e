"""Programs that start another command: tracers, namespace and session tools, job runners.

`strace curl …`, `unshare -r curl …`, `systemd-run curl …`, `proxychains curl …` run an
argument vector; `script -c '…'`, `sg GROUP '…'`, `parallel '… {}' ::: …`, `capsh -- -c
'…'` and `entr -s '…'` run a shell line; `tmux new '…'`, `screen -X stuff …`, `make --eval`,
`gdb -ex` and `expect -c` run code in a language or a terminal the policy does not read;
`tar --to-command=…`, `--checkpoint-action=exec=…`, `-I …`, `sort --compress-program=…`,
`rsync -e …` and `man -P …` run the command line an option names.
`launcher_code` says which (the `wrappers` module handles `sudo`, `env`, `timeout` and
their kin).
"""

from __future__ import annotations

import re

from rho_kernel.security.inner import (
    Inner,
    InnerArgv,
    InnerLine,
    Opaque,
    ReadsStdin,
    joined_line,
    options_end,
)
from rho_kernel.security.shellwords import Word

#: Launchers of an argument vector: name → options that take a separate value.
ARGV_LAUNCHERS: dict[str, frozenset[str]] = {
    "strace": frozenset({"-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S"}),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-A", "-D", "-E", "-F", "-l", "-n"}),
    "valgrind": frozenset(),
    "unshare": frozenset({"-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd"}),
    "nsenter": frozenset({"-t", "--target", "-S", "--setuid", "-G", "--setgid"}),
    "chrt": frozenset(),
    "prlimit": frozenset({"-p", "--pid", "-o", "--output"}),
    "fakeroot": frozenset({"-l", "--lib", "--faked", "-s", "-i"}),
    "dbus-run-session": frozenset({"--config-file", "--dbus-daemon"}),
    "systemd-run": frozenset(
        {"-p", "--property", "-u", "--unit", "--description", "--slice", "-E", "--setenv"}
        | {"-M", "--machine", "-H", "--host", "--uid", "--gid", "--nice", "--working-directory"}
    ),
    "firejail": frozenset(),
    "torsocks": frozenset({"-u", "-p", "-a", "-P"}),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "eatmydata": frozenset(),
    "nocache": frozenset(),
    "catchsegv": frozenset(),
    "faketime": frozenset({"-f"}),
    "setpriv": frozenset(),
    "numactl": frozenset(),
    "cpulimit": frozenset({"-l", "--limit", "-p", "--pid", "-e", "--exe"}),
    "trickle": frozenset({"-u", "-d", "-w", "-t", "-l", "-n"}),
    "runcon": frozenset({"-u", "-r", "-t", "-l"}),
    "xvfb-run": frozenset({"-n", "--server-num", "-e", "--error-file", "-f", "--auth-file"})
    | frozenset({"-p", "--xauth-protocol", "-s", "--server-args"}),
    "pkexec": frozenset({"--user"}),
    "caffeinate": frozenset({"-t", "-w"}),
}
#: Launchers that take one positional argument (a priority, a time) before the command.
_LEADING_POSITIONAL = frozenset({"chrt", "faketime"})
_TMUX_RUNNERS = frozenset(
    {"new", "new-session", "new-window", "neww", "split-window", "splitw", "send-keys"}
    | {"send", "run-shell", "run", "respawn-pane", "respawnp", "respawn-window", "respawnw"}
    | {"display-popup", "popup", "if-shell", "if", "pipe-pane", "pipep", "-c"}
)
_PARALLEL_VALUE_OPTIONS = frozenset(
    {"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I"}
    | {"--colsep", "-n", "-N", "-L", "--results", "--joblog", "--tmpdir", "--workdir"}
)
_PARALLEL_PLACEHOLDER = re.compile(r"(?<!\$)\{[^{}\s]*\}")
_PARALLEL_SOURCES = frozenset({":::", "::::", ":::+", "::::+"})
_GDB_COMMANDS = frozenset({"-ex", "-iex", "-x", "--command", "-eval-command", "--eval-command"})


def _command_option(args: list[Word], options: tuple[str, ...], what: str) -> list[Inner]:
    """`-c LINE`, `--command LINE` or `--command=LINE` among `args`."""
    for index, word in enumerate(args):
        value = word.value or ""
        bundled = "-c" in options and value[:1] == "-" and value[1:2] != "-" and value[-1:] == "c"
        if (value in options or bundled) and index + 1 < len(args):
            return [joined_line([args[index + 1]], "bash", what)]
        name, eq, rest = value.partition("=")
        if eq and name in options and name.startswith("--"):
            return [joined_line([Word.literal(rest)], "bash", what)]
    return []


def _sg(args: list[Word]) -> list[Inner]:
    """`sg [-] GROUP [-c] COMMAND`: the command is a line for `/bin/sh -c`."""
    rest = args[1:] if args and args[0].value == "-" else args
    rest = rest[1:]
    if rest and rest[0].value == "-c":
        rest = rest[1:2]
    return [joined_line(rest, "bash", "sg")] if rest else []


def _parallel(args: list[Word]) -> list[Inner]:
    """`parallel [options] COMMAND ::: ARGS`; without a command, the lines it reads are."""
    start = options_end(args, _PARALLEL_VALUE_OPTIONS)
    command: list[Word] = []
    for word in args[start:]:
        if word.value in _PARALLEL_SOURCES:
            break
        command.append(word)
    if not command:
        return [ReadsStdin()]
    line = joined_line(command, "bash", "parallel")
    if line.text is None:
        return [line]
    # each input replaces `{}`, `{.}`, `{1}`…, or is appended when there is none
    text, count = _PARALLEL_PLACEHOLDER.subn('"$PARALLEL_INPUT"', line.text)
    return [InnerLine(text if count else f"{text} $PARALLEL_INPUT", "bash", "parallel")]


def _capsh(args: list[Word]) -> list[Inner]:
    """`capsh … -- ARGS`: ARGS go to a shell (`-- -c LINE`)."""
    for index, word in enumerate(args):
        if word.value == "--":
            rest = args[index + 1 :]
            if not rest:
                return [ReadsStdin()]
            return _command_option(rest, ("-c",), "capsh -- -c")
    return []


def _entr(args: list[Word]) -> list[Inner]:
    start = options_end(args, frozenset())
    shell = any((w.value or "").startswith("-") and "s" in (w.value or "") for w in args[:start])
    rest = args[start:]
    if not rest:
        return []
    return [joined_line(rest[:1], "bash", "entr -s")] if shell else [InnerArgv(rest)]


def _opaque(name: str, args: list[Word]) -> list[Inner]:
    """Launchers that run code the policy does not read."""
    values = {w.value for w in args}
    if name == "tmux" and (values & _TMUX_RUNNERS or None in values):
        return [Opaque("'tmux' runs commands in a terminal the policy does not see")]
    if name == "screen" and any(v is None or not v.startswith("-") or v == "-X" for v in values):
        return [Opaque("'screen' runs commands in a terminal the policy does not see")]
    if name == "make" and any((v or "").startswith(("--eval", "-E")) for v in values):
        return [Opaque("'make --eval' runs makefile text")]
    if name == "gdb" and values & _GDB_COMMANDS:
        return [Opaque("'gdb -ex' runs debugger commands, which can run programs")]
    if name in ("expect", "tclsh") and "-c" in values:
        return [Opaque(f"'{name} -c' runs Tcl code")]
    return []


#: Options whose value is a command line the program runs: program → option → prefix of
#: the value that starts the command ("" for the whole value).
_OPTION_COMMANDS: dict[str, dict[str, str]] = {
    "tar": {
        "--to-command": "",
        "--checkpoint-action": "exec=",
        "-I": "",
        "--use-compress-program": "",
        "--rsh-command": "",
        "-F": "",
        "--info-script": "",
        "--new-volume-script": "",
    },
    "sort": {"--compress-program": ""},
    "rsync": {"-e": "", "--rsh": ""},
    "man": {"-P": "", "--pager": ""},
}


def _option_commands(name: str, args: list[Word]) -> list[Inner]:
    """The command lines given to the options of `_OPTION_COMMANDS` (`tar
    --to-command=…`, `sort --compress-program=…`, `rsync -e …`, `man -P …`)."""
    table = _OPTION_COMMANDS[name]
    shorts = {option[1] for option in table if not option.startswith("--")}
    found: list[Inner] = []
    for index, word in enumerate(args):
        value = word.value
        if value == "--":
            break
        following = args[index + 1] if index + 1 < len(args) else None
        if value is None:
            if word.text.lstrip("\"'").startswith("-"):
                found.append(Opaque(f"'{name}' is given an option only known when it runs"))
            continue
        if index == 0 and name == "tar" and value[:1].isalpha() and shorts & set(value):
            found.append(Opaque("tar's old-style options name a program it runs"))
        elif value.startswith("--"):
            option, equals, given = value.partition("=")
            prefix = table.get(option)
            if prefix is None:
                continue
            line = Word.literal(given) if equals else following
            found += _command_value(name, option, prefix, line)
        elif value.startswith("-"):
            for position, letter in enumerate(value[1:], start=1):
                if letter in shorts:
                    rest = value[position + 1 :]
                    line = Word.literal(rest) if rest else following
                    found += _command_value(name, "-" + letter, "", line)
                    break
    return found


def _command_value(name: str, option: str, prefix: str, value: Word | None) -> list[Inner]:
    if value is None:
        return []
    what = f"{name} {option}"
    if value.value is None:
        return [InnerLine(None, "bash", what)]
    if not value.value.startswith(prefix):
        return []
    return [InnerLine(value.value[len(prefix) :], "bash", what)]


def launcher_code(name: str, args: list[Word]) -> list[Inner] | None:
    """What the launcher `name` runs with `args`, or None when `name` is none (see the
    module)."""
    if name in ARGV_LAUNCHERS:
        start = options_end(args, ARGV_LAUNCHERS[name])
        start += 1 if name in _LEADING_POSITIONAL else 0
        return [InnerArgv(args[start:])] if args[start:] else []
    if name == "script":
        return _command_option(args, ("-c", "--command"), "script -c")
    if name == "gdb" and "--args" in (values := [w.value for w in args]):
        return [InnerArgv(args[values.index("--args") + 1 :])]
    if name in _OPTION_COMMANDS:
        return _option_commands(name, args)
    handler = {"sg": _sg, "parallel": _parallel, "capsh": _capsh, "entr": _entr}.get(name)
    if handler is not None:
        return handler(args)
    if name in ("tmux", "screen", "make", "gdb", "expect", "tclsh"):
        return _opaque(name, args)
    return None


__all__ = ["ARGV_LAUNCHERS", "launcher_code"]
