"""The project's ignore rules, as git and ripgrep read them, inside or outside a git repository.

Sources, from the highest precedence to the lowest (ripgrep's order):

1. `.rgignore`, then `.ignore`, then `.gitignore` files: each in every directory from the
   project root down; for each kind the deepest directory with a matching pattern decides;
2. `.git/info/exclude` of the project root;
3. the global excludes file: `core.excludesFile` in `~/.gitconfig` (else in
   `$XDG_CONFIG_HOME/git/config`), else `$XDG_CONFIG_HOME/git/ignore` (`XDG_CONFIG_HOME`
   defaults to `~/.config`). Git itself is never run; its configuration is read as text.

Within one file the last matching pattern wins, `!` re-includes, and a directory that is
ignored is never entered (so nothing below it can be re-included), as in git. Files above
the project root are not consulted. Project files are read through the sandbox; the global
files belong to the user and are read directly.

`pathspec` compiles the patterns (`GitIgnoreSpecPattern`); it is imported only when rules
are first loaded, never at startup. A pattern matches an entry's own path only: a pattern
that matched a parent directory decides nothing about the children (that directory would
have been skipped, unless it was the path the tool was asked for).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rho_kernel.security import SandboxError, SandboxRoot, open_regular

#: Per-directory ignore files, from the highest precedence to the lowest.
IGNORE_FILE_NAMES: tuple[str, ...] = (".rgignore", ".ignore", ".gitignore")
#: Larger ignore files are read only up to this many bytes.
MAX_IGNORE_FILE_BYTES = 1024 * 1024
#: The repository's own exclude file, relative to the project root.
EXCLUDE_PATH = ".git/info/exclude"


@dataclass(frozen=True, slots=True)
class _Pattern:
    include: bool  # True: ignore; False: re-include (`!`)
    regex: re.Pattern[str]
    implies_children: bool  # the regex also matches paths below a matched directory


@dataclass(slots=True)
class IgnoreFile:
    """The patterns of one ignore file; `lines` are the raw lines as read."""

    lines: list[str]
    patterns: list[_Pattern] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> IgnoreFile:
        """Compile the lines of an ignore file; lines pathspec rejects are skipped."""
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

        lines = [line.removesuffix("\r") for line in text.split("\n")]
        patterns: list[_Pattern] = []
        for line in lines:
            try:
                compiled: Any = GitIgnoreSpecPattern(line)
            except Exception:  # an invalid pattern is skipped, as git skips it
                continue
            if compiled.include is None or compiled.regex is None:
                continue
            regex = compiled.regex
            patterns.append(_Pattern(compiled.include, regex, "ps_d" in regex.groupindex))
        return cls(lines=lines, patterns=patterns)

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included) or None (no pattern matches) for `path`.

        `path` is relative to the directory holding the file, `/`-separated, without a
        trailing slash.
        """
        for pattern in reversed(self.patterns):
            if pattern.implies_children:
                candidate = path + "/" if is_dir else path
                match = pattern.regex.match(candidate)
                hit = match is not None and match.end() == len(candidate)
            else:
                hit = pattern.regex.match(path) is not None
            if hit:
                return pattern.include
        return None


def _read_project_file(root: SandboxRoot, path: str) -> str | None:
    """The text of a project file through the sandbox, or None if it cannot be read."""
    try:
        handle = root.open_read(path)
    except (SandboxError, OSError):
        return None
    with handle:
        try:
            data = handle.read(MAX_IGNORE_FILE_BYTES)
        except OSError:
            return None
    return data.decode("utf-8", errors="replace")


def _read_user_file(path: Path) -> str | None:
    try:
        with open_regular(path) as handle:  # a FIFO or device there: skipped, never waited on
            return handle.read(MAX_IGNORE_FILE_BYTES).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None


_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+\"[^\"]*\")?\s*\]\s*(.*)$")
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def _config_value(text: str) -> str:
    """A git config value: quotes removed, escapes resolved, an unquoted comment dropped."""
    out: list[str] = []
    quoted = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            quoted = not quoted
        elif char == "\\" and index + 1 < len(text):
            index += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(text[index], text[index]))
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        index += 1
    return "".join(out).strip()


def excludes_file_setting(config_text: str) -> str | None:
    """The last `core.excludesFile` value in the text of a git config file, or None."""
    section = ""
    found: str | None = None
    for raw in config_text.splitlines():
        line = raw
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            line = header.group(2)
            if not line.strip():
                continue
        key = _KEY.match(line)
        if key and section == "core" and key.group(1).lower() == "excludesfile":
            found = _config_value(key.group(2) or "")
    return found or None


def global_excludes_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where the user's global excludes file is, following git's lookup (never runs git)."""
    env = os.environ if environ is None else environ
    home_text = env.get("HOME") or env.get("USERPROFILE")
    home = Path(home_text) if home_text else None
    xdg_text = env.get("XDG_CONFIG_HOME")
    xdg = Path(xdg_text) if xdg_text else (home / ".config" if home else None)
    for config in (home / ".gitconfig" if home else None, xdg / "git" / "config" if xdg else None):
        text = _read_user_file(config) if config else None
        setting = excludes_file_setting(text) if text else None
        if setting:
            if setting.startswith("~/") and home is not None:
                return home / setting[2:]
            path = Path(setting)
            return path if path.is_absolute() or home is None else home / path
    return xdg / "git" / "ignore" if xdg else None


def _escape_glob(text: str) -> str:
    return re.sub(r"([\\*?\[\]{}!#])", r"\\\1", text)


def translate_line(line: str, base: str) -> str | None:
    """An ignore-file line of the directory `base` rewritten to apply from the project root.

    `base` is the directory relative to the root ("" for the root itself, which keeps the
    line as it is). Blank lines and comments give None.
    """
    if not line.strip() or line.startswith("#"):
        return None
    if not base:
        return line
    negate = line.startswith("!")
    body = line[1:] if negate else line
    anchored = "/" in body.rstrip("/ ")
    prefix = _escape_glob(base)
    joined = f"{prefix}/{body.lstrip('/')}" if anchored else f"{prefix}/**/{body}"
    return ("!" if negate else "") + joined


class IgnoreRules:
    """Every ignore rule of a project, loaded directory by directory as a walk reaches it."""

    def __init__(self, root: SandboxRoot, *, global_file: IgnoreFile | None = None) -> None:
        """Rules for `root`; the exclude file is read now, `global_file` defaults to the user's."""
        self.root = root
        if global_file is None:
            path = global_excludes_path()
            text = _read_user_file(path) if path else None
            global_file = IgnoreFile.parse(text) if text else None
        self.global_file = global_file
        exclude = _read_project_file(root, EXCLUDE_PATH)
        self.exclude_file = IgnoreFile.parse(exclude) if exclude else None
        self._dirs: dict[str, dict[str, IgnoreFile]] = {}

    def load_dir(self, directory: str, present: Iterable[str] | None = None) -> None:
        """Read the ignore files of `directory` (root-relative, "" for the root) once.

        `present` names the entries known to exist there (saves opening absent files).
        """
        if directory in self._dirs:
            return
        names = IGNORE_FILE_NAMES if present is None else set(present)
        files: dict[str, IgnoreFile] = {}
        for name in IGNORE_FILE_NAMES:
            if name in names:
                text = _read_project_file(self.root, f"{directory}/{name}" if directory else name)
                if text is not None:
                    files[name] = IgnoreFile.parse(text)
        self._dirs[directory] = files

    def load_ancestors(self, directory: str) -> None:
        """Read the ignore files of the root and every directory down to `directory`."""
        parts = [part for part in directory.split("/") if part and part != "."]
        for depth in range(len(parts) + 1):
            self.load_dir("/".join(parts[:depth]))

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether the root-relative `path` is ignored (its directories' files must be loaded)."""
        parts = path.split("/")
        dirs = ["/".join(parts[:depth]) for depth in range(len(parts) - 1, -1, -1)]
        for name in IGNORE_FILE_NAMES:
            for directory in dirs:
                rules = self._dirs.get(directory)
                ignore_file = rules.get(name) if rules else None
                if ignore_file is None:
                    continue
                relative = path[len(directory) + 1 :] if directory else path
                decision = ignore_file.decide(relative, is_dir)
                if decision is not None:
                    return decision
        for ignore_file in (self.exclude_file, self.global_file):
            if ignore_file is not None:
                decision = ignore_file.decide(path, is_dir)
                if decision is not None:
                    return decision
        return False

    def outside_rules(self, scope: str) -> str:
        """The rules ripgrep does not read itself when it searches `scope`, as one ignore file.

        ripgrep is run from the project root with its own exclude, global and parent-directory
        handling switched off; it still reads the ignore files in `scope` and below. What it
        misses — the global and exclude files and the ignore files of the directories above
        `scope` — is returned here, rewritten relative to the root and ordered from the
        lowest precedence to the highest, for `--ignore-file` (where the last match wins),
        followed by a rule that leaves out rho's state directory.
        """
        lines: list[str] = []
        for ignore_file in (self.global_file, self.exclude_file):
            if ignore_file is not None:
                lines.extend(filter(None, (translate_line(x, "") for x in ignore_file.lines)))
        parts = [part for part in scope.split("/") if part and part != "."]
        above = ["/".join(parts[:depth]) for depth in range(len(parts))]
        for name in reversed(IGNORE_FILE_NAMES):
            for directory in above:
                ignore_file = self._dirs.get(directory, {}).get(name)
                if ignore_file is not None:
                    translated = (translate_line(x, directory) for x in ignore_file.lines)
                    lines.extend(filter(None, translated))
        lines.extend(self._state_dir_rules())
        return "\n".join(lines) + "\n" if lines else ""

    def _state_dir_rules(self) -> list[str]:
        """An anchored rule leaving out rho's state directory where it lies inside the root
        under a name ripgrep would walk (a `~/.rho` linked to `~/dotfiles/rho`, say). This
        keeps ripgrep's own walk out of it; what is opened through the sandbox is refused
        there by identity, which also covers a bind mount."""
        state = Path(os.path.realpath(self.root.fence.path))
        if state == self.root.path or not state.is_relative_to(self.root.path):
            return []
        relative = state.relative_to(self.root.path).as_posix()
        return ["/" + _escape_glob(relative).replace(" ", "\\ ") + "/"]


__all__ = [
    "EXCLUDE_PATH",
    "IGNORE_FILE_NAMES",
    "MAX_IGNORE_FILE_BYTES",
    "IgnoreFile",
    "IgnoreRules",
    "excludes_file_setting",
    "global_excludes_path",
    "translate_line",
]
