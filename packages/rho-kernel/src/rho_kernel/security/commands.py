"""The command policy: which shell lines `run_command` and `wait_for` refuse to run.

Every simple command of a line is checked — each part of a pipeline or list, command
substitutions, subshells, groups, functions, and what wrappers run (`sudo`, `env`,
`timeout`, `xargs`, `find -exec`, `bash -c '…'`, `eval`, …, see `rho_kernel.security.
wrappers`) — and so is text that becomes code when it shows in the line: a `trap` action,
a git alias or `-c core.pager=…`, a `GIT_SSH_COMMAND=…` assignment. A command's name is
compared after quote removal and without its directory (`'curl'`, `c\\url`,
`/usr/bin/curl` and `curl.exe` are all `curl`). bash lines are parsed
with the tree-sitter bash grammar, PowerShell lines with a tokenizer (`pwshparse`).

The policy refuses (the rule name in brackets):

- a command on the denylist — network clients of both shells, plus `[shell]
  denied_commands` [`denied_command`];
- a command with every flag of a `[shell] denied_flag_combos` entry [`denied_flag_combo`];
- a recursive removal of `/`, a top-level directory, a home directory, a drive root or the
  parent directory, in any flag spelling (`rm -rf /`, `rm -r -f ~`, `rm --recursive
  --force /*`, `Remove-Item -Recurse -Force C:\\`), also through a parameter's default
  (`rm -rf ${X:-/}`) or a value the line assigns (`X=/; rm -rf $X`), and `rm --no-preserve-root` [`recursive_removal`];
- `rsync` to a remote host, bash's `/dev/tcp/…` and `/dev/udp/…`, and the .NET network
  types in PowerShell (`System.Net.WebClient`, `…Http.HttpClient`, `…Sockets.TcpClient`,
  …) [`network`];
- a command whose name is only known when it runs (`$cmd`, `$(echo curl)`, `cu*l`),
  `eval`/`bash -c`/`trap` of text computed at run time, and text that becomes code out of
  the policy's sight: aliases, `hash -p`, `enable -f`, a script that is a command's output
  (`source <(…)`), git settings that point at files of code, `BASH_ENV`, `GIT_CONFIG_*`
  (`rho_kernel.security.codetext`, `codevars`, `gitcode`) [`dynamic_command`];
- a shell reading its commands from standard input (`… | bash`) [`stdin_shell`];
- a line that does not parse [`syntax_error`], or nests shells more than 8 deep
  [`too_deep`].

The policy is a guard rail, not a sandbox: a script file, an interpreter (`python -c`) or
a program the model wrote can still reach the network; approval is what keeps a command
from running unseen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rho_kernel.security.codevars import is_code_variable, variable_code
from rho_kernel.security.inner import Inner, InnerLine, Opaque, ReadsStdin
from rho_kernel.security.shellwords import ParsedLine, Word, shown
from rho_kernel.security.wrappers import inner_commands

if TYPE_CHECKING:
    from rho_kernel.config.model import ShellConfig

Shell = Literal["bash", "pwsh"]

#: Commands refused in every shell (compared lower-case, without directory or `.exe`).
BUILTIN_DENIED_COMMANDS: frozenset[str] = frozenset(
    {"curl", "wget", "wget2", "curlie", "http", "https", "xh", "aria2c"}
    | {"nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "socat", "telnet"}
    | {"ftp", "tftp", "lftp", "ssh", "scp", "sftp"}
    | {"invoke-webrequest", "invoke-restmethod", "iwr", "irm", "start-bitstransfer"}
    | {"bitsadmin", "certutil", "send-mailmessage", "enter-pssession", "new-pssession"}
    | {"start-process", "saps", "new-service", "set-executionpolicy"}
)
#: How many shells deep (`bash -c "sh -c '…'"`) a line is followed before it is refused.
MAX_DEPTH = 8

_NETWORK_TYPES = re.compile(
    r"net\.(?:http\.)?(?:web|http|tcp|udp)client|sockets\.(?:tcp|udp)client"
    r"|net\.(?:http|ftp)?webrequest|net\.sockets\.socket\b|using\s+namespace\s+system\.net",
    re.IGNORECASE,
)
#: PowerShell that turns a string into code, or sets a variable whose value a program runs.
_PWSH_CODE = re.compile(
    r"scriptblock\]::create|\.(?:invokescript|newscriptblock|expandstring)\s*\("
    r"|\$\{?env:(?P<var>[A-Za-z_][A-Za-z0-9_%]*)\}?\s*[+]?="
    r"|setenvironmentvariable\s*\(\s*['\"](?P<named>[A-Za-z_][A-Za-z0-9_%]*)",
    re.IGNORECASE,
)
_NET_DEVICE = re.compile(r"/dev/(tcp|udp)/")
_RSYNC_REMOTE = re.compile(r"^(?:rsync://|[^/:]+:)")
_PWSH_REMOVERS = frozenset({"remove-item", "rm", "ri", "del", "erase", "rd", "rmdir"})


@dataclass(frozen=True, slots=True)
class Denial:
    """Why a command line is refused: the `rule` that matched and a `reason` for people."""

    rule: str
    reason: str

    def __str__(self) -> str:
        return self.reason


def command_name(value: str) -> str:
    """A command name as the policy compares it: lower-case, no directory, no `.exe`."""
    name = re.split(r"[/\\]", value.strip())[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def _flags(args: Sequence[Word], shell: Shell) -> set[str]:
    """The options among `args`, lower-case; bundled short options count one by one."""
    found: set[str] = set()
    for word in args:
        value = (word.value or "").lower()
        if value == "--" and shell == "bash":
            break
        if not value.startswith("-") or value == "-":
            continue
        if shell == "pwsh":
            found.add(value.partition(":")[0])
        elif value.startswith("--"):
            found.add(value.partition("=")[0])
        else:
            found.add(value)
            found.update(f"-{char}" for char in value[1:])
    return found


def _has_flag(present: set[str], wanted: str, shell: Shell) -> bool:
    """`wanted` is among `present`, also as an abbreviation (`--rec`, PowerShell `-Rec`)."""
    wanted = wanted.lower()
    if wanted in present:
        return True
    if shell == "pwsh":
        return any(len(p) >= 2 and wanted.startswith(p) for p in present)
    return wanted.startswith("--") and any(
        p.startswith("--") and len(p) >= 3 and wanted.startswith(p) for p in present
    )


def _segments(worst: str) -> tuple[str, list[str]] | None:
    """`worst` as (anchor, normalised segments): anchor "/" (absolute or a drive), "~"
    (home) or "" (relative); None for an empty word."""
    path = worst.strip().replace("\\", "/")
    if not path:
        return None
    anchor = ""
    if re.match(r"^[A-Za-z]:(/|$)", path):
        anchor, path = "/", path[2:]
    elif path.startswith("/"):
        anchor = "/"
    elif path.startswith("~"):
        anchor, path = "~", path.partition("/")[2]
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and anchor and parts:
            parts.pop()
        elif part != ".." or not anchor:
            parts.append(part)
    return anchor, parts


def _is_glob(part: str) -> bool:
    return bool(part) and set(part) <= set("*?.[]!") and any(c in part for c in "*?")


def dangerous_target(worst: str, *, static: bool = True) -> bool:
    """Whether removing `worst` recursively would remove the file system root, a top-level
    directory, a home directory (`~`, `$HOME`), a drive root or a parent of the working
    directory — also through a glob (`/*`, `~/*`, `/usr/*`). For a word with expansions
    (`static` false), only the root and home directories count: `"$DIR/"` is `/` when
    `DIR` is empty, while `$TMPDIR/build` is left to approval."""
    split = _segments(worst)
    if split is None:
        return False
    anchor, parts = split
    named = [part for part in parts if not _is_glob(part)]
    if anchor == "/":
        limit = 1 if static else 0
        return len(named) <= limit and all(_is_glob(p) for p in parts[len(named) :])
    if anchor == "~":
        return not named
    return bool(parts) and all(p == ".." or _is_glob(p) for p in parts) and ".." in parts


class CommandPolicy:
    """Checks shell lines against the denylist and the built-in rules (see the module).

    `denied_commands` adds command names; each `denied_flag_combos` entry is a list of
    flags that together are refused, optionally led by a command name it is limited to:
    `["-r", "-f"]` refuses any command given both (in any spelling: `-rf`, `-fr`, `-r -f`),
    `["git", "push", "--force"]` only `git` with the argument `push` and the flag
    `--force`. `shell` is how lines are parsed.
    """

    def __init__(
        self,
        *,
        denied_commands: Iterable[str] = (),
        denied_flag_combos: Iterable[Sequence[str]] = (),
        shell: Shell = "bash",
    ) -> None:
        self.shell: Shell = shell
        self.denied = BUILTIN_DENIED_COMMANDS | {command_name(c) for c in denied_commands if c}
        self.combos: list[tuple[str | None, tuple[str, ...]]] = []
        for combo in denied_flag_combos:
            items = [item.strip() for item in combo if item.strip()]
            if items and not items[0].startswith("-"):
                self.combos.append((command_name(items[0]), tuple(items[1:])))
            elif items:
                self.combos.append((None, tuple(items)))

    @classmethod
    def from_config(cls, config: ShellConfig, *, shell: Shell = "bash") -> CommandPolicy:
        """The policy of a `[shell]` config section."""
        return cls(
            denied_commands=config.denied_commands,
            denied_flag_combos=config.denied_flag_combos,
            shell=shell,
        )

    def check(self, command: str) -> Denial | None:
        """The first rule `command` breaks, or None when it may run."""
        return self._check_line(command, self.shell, 0, None)

    # ── lines ────────────────────────────────────────────────────────────────

    def _check_line(self, line: str, shell: Shell, depth: int, outer: str | None) -> Denial | None:
        if depth > MAX_DEPTH:
            return Denial("too_deep", f"shells nested more than {MAX_DEPTH} levels deep")
        parsed = _parse(line, shell)
        where = outer or shown(line)
        if parsed.error is not None:
            return Denial(
                "syntax_error",
                f"the command could not be parsed ({parsed.error}), so it cannot be checked "
                f"(in: {where})",
            )
        if shell == "pwsh" and (denial := _pwsh_text(line.replace("`", ""), where)):
            return denial
        for target in parsed.redirects:
            if denial := _network_word(target, where):
                return denial
        for text in parsed.subscripts:
            denial = self._check_line(f": {text}", "bash", depth + 1, where)
            if denial is not None and denial.rule != "syntax_error":
                return denial
        for assignment in parsed.assignments:
            inner = variable_code(assignment.name, assignment.value)
            if inner is not None and (denial := self._check_one(inner, "", shell, depth, where)):
                return denial
        for simple in parsed.commands:
            denial = self._check_argv(simple.words, shell, depth, outer or shown(simple.text))
            if denial is not None:
                return denial
        return None

    def _check_argv(self, words: list[Word], shell: Shell, depth: int, where: str) -> Denial | None:
        head = words[0]
        if not head.static:
            return Denial(
                "dynamic_command",
                f"the command name {head.text!r} is only known when the command runs, so it "
                f"cannot be checked against the denylist (in: {where})",
            )
        name = command_name(head.value or "")
        args = words[1:]
        denial = (
            self._rule_denylist(name, where)
            or next(filter(None, (_network_word(w, where) for w in args)), None)
            or self._rule_combos(name, args, shell, where)
            or _rule_removal(name, args, shell, where)
            or _rule_rsync(name, args, where)
        )
        return denial or self._check_inner(name, args, shell, depth, where)

    def _check_inner(
        self, name: str, args: list[Word], shell: Shell, depth: int, where: str
    ) -> Denial | None:
        for inner in inner_commands(name, args, shell):
            if denial := self._check_one(inner, name, shell, depth, where):
                return denial
        return None

    def _check_one(
        self, inner: Inner, name: str, shell: Shell, depth: int, where: str
    ) -> Denial | None:
        """Check what `name` runs besides itself (see `rho_kernel.security.inner`)."""
        if isinstance(inner, ReadsStdin):
            return Denial(
                "stdin_shell",
                f"'{name}' would read its commands from standard input, which cannot be "
                f"checked; pass them with -c or in a script file (in: {where})",
            )
        if isinstance(inner, Opaque):
            return Denial("dynamic_command", f"{inner.why}, so it cannot be checked (in: {where})")
        if isinstance(inner, InnerLine):
            if inner.text is None:
                return Denial(
                    "dynamic_command",
                    f"the commands run by {inner.what!r} are only known when the command "
                    f"runs, so they cannot be checked (in: {where})",
                )
            inner_shell: Shell = "pwsh" if inner.shell == "pwsh" else "bash"
            return self._check_line(inner.text, inner_shell, depth + 1, where)
        if inner.words:
            if depth + 1 > MAX_DEPTH:
                return Denial("too_deep", f"commands wrapped more than {MAX_DEPTH} deep")
            return self._check_argv(inner.words, shell, depth + 1, where)
        return None

    # ── rules ────────────────────────────────────────────────────────────────

    def _rule_denylist(self, name: str, where: str) -> Denial | None:
        if name in self.denied:
            return Denial("denied_command", f"'{name}' is on the denylist (in: {where})")
        return None

    def _rule_combos(self, name: str, args: list[Word], shell: Shell, where: str) -> Denial | None:
        if not self.combos:
            return None
        present = _flags(args, shell) | {(w.value or "").lower() for w in args if w.static}
        for only, flags in self.combos:
            applies = (only is None or only == name) and flags
            if applies and all(_has_flag(present, flag, shell) for flag in flags):
                return Denial(
                    "denied_flag_combo",
                    f"the flag combination {' + '.join(flags)} is denied (in: {where})",
                )
        return None


def _parse(line: str, shell: Shell) -> ParsedLine:
    if shell == "pwsh":
        from rho_kernel.security.pwshparse import parse_pwsh

        return parse_pwsh(line)
    from rho_kernel.security.bashparse import parse_bash

    return parse_bash(line)


def _pwsh_text(line: str, where: str) -> Denial | None:
    """What PowerShell text does that its commands do not show: .NET network types, strings
    made into script blocks, code variables set in the environment."""
    if match := _NETWORK_TYPES.search(line):
        return Denial("network", f"'{match.group(0)}' opens network connections (in: {where})")
    for match in _PWSH_CODE.finditer(line):
        variable = match.group("var") or match.group("named")
        if variable is None or is_code_variable(variable.upper()):
            return Denial(
                "dynamic_command",
                f"'{match.group(0)}' makes code run that is only known when the command runs, "
                f"so it cannot be checked (in: {where})",
            )
    return None


def _network_word(word: Word, where: str) -> Denial | None:
    texts = [word.value if word.value is not None else word.worst]
    for text in texts + [reading.text for reading in word.readings]:
        if match := _NET_DEVICE.search(text):
            return Denial(
                "network", f"'/dev/{match.group(1)}/…' opens a network connection (in: {where})"
            )
    return None


def _rule_removal(name: str, args: list[Word], shell: Shell, where: str) -> Denial | None:
    if name not in (_PWSH_REMOVERS if shell == "pwsh" else {"rm"}):
        return None
    present = _flags(args, shell)
    if shell == "bash" and _has_flag(present, "--no-preserve-root", shell):
        return Denial("recursive_removal", f"'rm --no-preserve-root' is denied (in: {where})")
    wanted = ("-recurse",) if shell == "pwsh" else ("-r", "--recursive")
    if not any(_has_flag(present, flag, shell) for flag in wanted):
        return None
    options_over = False
    for word in args:
        value = word.value if word.value is not None else word.worst
        if value == "--" and not options_over:
            options_over = True
            continue
        if value.startswith("-") and not options_over:
            continue
        readings = [(word.worst, word.value is not None)]
        readings += [(reading.text, reading.exact) for reading in word.readings]
        if any(dangerous_target(text, static=exact) for text, exact in readings):
            return Denial(
                "recursive_removal",
                f"recursively removing {word.text!r} would delete the file system root, a "
                f"top-level or home directory (in: {where})",
            )
    return None


def _rule_rsync(name: str, args: list[Word], where: str) -> Denial | None:
    if name != "rsync":
        return None
    for word in args:
        value = word.value if word.value is not None else word.worst
        if not value.startswith("-") and _RSYNC_REMOTE.match(value):
            return Denial(
                "network", f"'rsync' to the remote location {value!r} is denied (in: {where})"
            )
    return None


__all__ = [
    "BUILTIN_DENIED_COMMANDS",
    "MAX_DEPTH",
    "CommandPolicy",
    "Denial",
    "Shell",
    "command_name",
    "dangerous_target",
]
