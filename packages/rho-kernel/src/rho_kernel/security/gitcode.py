"""git settings and options that run commands: what the policy checks of a git command line.

`git -c alias.x='!curl …' x` runs the alias as a shell line; `-c core.sshCommand=…`,
`core.pager`, `core.editor`, `diff.external`, `filter.*.clean`, `credential.helper` and
their kin name commands git runs; `core.hooksPath` and `include.path` point git at files of
code; `--config-env` takes a setting's value from the environment. Options of subcommands do
the same (`rebase --exec`, `submodule foreach`, `bisect run`, `fetch --upload-pack`,
`difftool --extcmd`, `grep -O`/`--open-files-in-pager`, `filter-branch --tree-filter` and
the other filters, `send-email --sendmail-cmd`), and `--exec-path=DIR` makes git run its
subcommands from DIR. `git_code` returns each command line to be parsed and checked, or the
code that cannot be checked.

This list serves the command policy (the denylist sees what git runs). Approval rules do
not rely on it: a rule covers a git command only with options known to run nothing
(`rho_kernel.approvals.safe_git`).
"""

from __future__ import annotations

import re

from rho_kernel.security.inner import Inner, InnerArgv, InnerLine, Opaque
from rho_kernel.security.shellwords import Word

#: Settings (lower-case; `*` a subsection) whose value is a command line git runs.
_COMMAND_KEYS = re.compile(
    r"core\.(?:sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand|fsmonitor)"
    r"|sequence\.editor|diff\.external|diff\..+\.(?:command|textconv)|interactive\.difffilter"
    r"|(?:diff|merge)tool\..+\.(?:cmd|path)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)"
    r"|credential\.(?:.+\.)?helper|gpg\.(?:.+\.)?program|pager\..+|web\.browser"
    r"|(?:browser|man)\..+\.(?:cmd|path)|sendemail\.(?:sendmailcmd|smtpserver|tocmd|cccmd)"
    r"|remote\..+\.(?:uploadpack|receivepack|vcs)|uploadpack\.packobjectshook"
    r"|submodule\..+\.update|trailer\..+\.(?:command|cmd)|alias\..+"
)
#: Settings that point git at files of code or let it run transports that are commands.
_OPAQUE_KEYS = re.compile(
    r"core\.hookspath|include\.path|includeif\..+\.path|protocol\.(?:.+\.)?allow"
)
_LITERAL_KEY = re.compile(r"^[A-Za-z0-9._-]+$")
#: Global options that take the next argument as their value.
_VALUE_OPTIONS = frozenset(
    {"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"}
    | {"--list-cmds", "--attr-source"}
)
#: Subcommand options whose value is a command line: subcommand → options.
_COMMAND_OPTIONS: dict[str, frozenset[str]] = {
    "rebase": frozenset({"-x", "--exec"}),
    "difftool": frozenset({"-x", "--extcmd"}),
    "mergetool": frozenset({"--tool-cmd"}),
    "fetch": frozenset({"--upload-pack"}),
    "pull": frozenset({"--upload-pack"}),
    "clone": frozenset({"-u", "--upload-pack"}),
    "ls-remote": frozenset({"--upload-pack"}),
    "archive": frozenset({"--exec"}),
    "push": frozenset({"--receive-pack", "--exec"}),
    "send-pack": frozenset({"--receive-pack", "--exec"}),
    "fetch-pack": frozenset({"--upload-pack", "--exec"}),
    "filter-branch": frozenset(
        {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter"}
        | {"--commit-filter", "--tag-name-filter", "--setup"}
    ),
    "send-email": frozenset({"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"}),
}
#: Subcommand options whose command line can only be attached (`-Ocmd`, `--opt=cmd`):
#: alone, they run a default (the user's pager) and take no value.
_ATTACHED_COMMAND_OPTIONS: dict[str, tuple[str, str]] = {
    "grep": ("-O", "--open-files-in-pager"),
}


def _setting(key: str, value: str | None, what: str) -> Inner | None:
    """The code a setting `key` (any case) with `value` (None: from the environment or
    computed at run time) makes git run."""
    key = key.lower()
    if _OPAQUE_KEYS.fullmatch(key):
        return Opaque(f"'{what} {key}' points git at code that is not on the command line")
    if not _COMMAND_KEYS.fullmatch(key):
        return None
    if value is None:
        return InnerLine(None, "bash", f"{what} {key}")
    value = value.strip()
    if key.startswith("alias.") and not value.startswith("!"):
        return InnerLine(f"git {value}", "bash", f"{what} {key}")
    return InnerLine(value.removeprefix("!"), "bash", f"{what} {key}")


def _config_word(word: Word, what: str) -> Inner | None:
    """`-c KEY=VALUE` (or `--config-env KEY=ENVVAR`, whose value is never known)."""
    if word.value is not None:
        key, _, value = word.value.partition("=")
        return _setting(key, value if what == "git -c" else None, what)
    key = word.text.strip("\"'").partition("=")[0]
    if "=" not in word.text or not _LITERAL_KEY.match(key):
        return Opaque(f"'{what}' sets git configuration that is only known when it runs")
    return _setting(key, None, what)


#: `git config` options that take a value, and ones after which nothing is set.
_CONFIG_VALUE_OPTIONS = frozenset(
    {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url"}
)
_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--unset"}
    | {"--unset-all", "--rename-section", "--remove-section", "-e", "--edit", "--get-color"}
    | {"--get-colorbool", "get", "list", "unset", "rename-section", "remove-section", "edit"}
)


def _config_set(args: list[Word]) -> list[Inner]:
    """`git config [options] KEY VALUE` (and `git config set KEY VALUE`): a setting that a
    later git command runs, checked as if it were given with `-c`."""
    positional: list[Word] = []
    index = 0
    while index < len(args):
        value = args[index].value
        if value in _CONFIG_READS:
            return []
        if value in _CONFIG_VALUE_OPTIONS:
            index += 2
            continue
        if value is None or not value.startswith("-"):
            positional.append(args[index])
        index += 1
    if positional and positional[0].value in ("set", "add"):
        positional = positional[1:]
    if len(positional) < 2:
        return []
    key, setting = positional[0], positional[1]
    if key.value is None:
        return [Opaque("'git config' sets a setting named only when it runs")]
    inner = _setting(key.value, setting.value, "git config")
    return [inner] if inner is not None else []


def _subcommand(sub: str, args: list[Word]) -> list[Inner]:
    if sub == "config":
        return _config_set(args)
    if sub == "submodule" and args and args[0].value == "foreach":
        line = [w for w in args[1:] if w.value not in ("--recursive", "-q", "--quiet")]
        return [_joined(line, "git submodule foreach")] if line else []
    if sub == "bisect" and args and args[0].value == "run":
        return [InnerArgv(args[1:])] if args[1:] else []
    options = _COMMAND_OPTIONS.get(sub, frozenset())
    found: list[Inner] = _attached_commands(sub, args)
    for index, word in enumerate(args):
        value = word.value or ""
        name, eq, rest = value.partition("=")
        if name in options and eq:
            found.append(InnerLine(rest, "bash", f"git {sub} {name}"))
        elif value in options and index + 1 < len(args):
            found.append(InnerLine(args[index + 1].value, "bash", f"git {sub} {value}"))
        elif word.value is None and word.text.lstrip("\"'").startswith("--") and "=" in word.text:
            key = word.text.lstrip("\"'").partition("=")[0]
            if key in options:
                found.append(InnerLine(None, "bash", f"git {sub} {key}"))
    return found


def _attached_commands(sub: str, args: list[Word]) -> list[Inner]:
    """The command lines attached to the options of `_ATTACHED_COMMAND_OPTIONS`, also
    bundled after other short flags (`-nOcmd`) or abbreviated (`--open-files=cmd`); a
    word only known when it runs may be one (its command is then unknown too)."""
    if sub not in _ATTACHED_COMMAND_OPTIONS:
        return []
    short, long = _ATTACHED_COMMAND_OPTIONS[sub]
    what = f"git {sub} {short}"
    found: list[Inner] = []
    for word in args:
        if word.value == "--":
            break
        text = word.value if word.value is not None else word.text.lstrip("\"'")
        known = word.value is not None
        if text.startswith("--"):
            name, equals, rest = text.partition("=")
            if equals and len(name) > 3 and long.startswith(name):
                found.append(InnerLine(rest if known else None, "bash", what))
        elif text.startswith("-") and short[1] in text[1:]:
            attached = text[text.index(short[1], 1) + 1 :]
            if attached:
                found.append(InnerLine(attached if known else None, "bash", what))
    return found


def _joined(words: list[Word], what: str) -> InnerLine:
    if any(w.value is None for w in words):
        return InnerLine(None, "bash", what)
    return InnerLine(" ".join(w.value or "" for w in words), "bash", what)


def git_code(args: list[Word]) -> list[Inner]:
    """The code `git ARGS` runs through its settings and options (see the module)."""
    found: list[Inner] = []
    index = 0
    while index < len(args):
        value = args[index].value
        if value in ("-c", "--config-env") and index + 1 < len(args):
            what = "git -c" if value == "-c" else "git --config-env"
            found.append(_config_word(args[index + 1], what) or InnerArgv([]))
            index += 2
        elif value is not None and value.startswith("--exec-path="):
            found.append(Opaque("'git --exec-path=…' runs git's commands from another directory"))
            index += 1
        elif value is not None and value.startswith("--config-env="):
            word = Word.literal(value.partition("=")[2])
            found.append(_config_word(word, "git --config-env") or InnerArgv([]))
            index += 1
        elif value in _VALUE_OPTIONS:
            index += 2
        elif value is not None and value.startswith("-"):
            index += 1
        else:
            break
    if index < len(args) and args[index].value is not None:
        found += _subcommand(args[index].value or "", args[index + 1 :])
    return [inner for inner in found if not (isinstance(inner, InnerArgv) and not inner.words)]


__all__ = ["git_code"]
