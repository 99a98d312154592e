"""The built-in redaction rules: credential shapes, and how an assigned value is judged.

Token rules match a known prefix at the start of a word followed by the characters the
service uses (`task-…` holds no `sk-` key; a token inside a base64 blob is no token). Where
a service's tokens are random, the body must contain a digit, so prose ("Bearer
authentication", a kebab-case name after `sk-`) is left alone. A token longer than its
service's usual length is redacted whole: a leftover tail would still leak.
"""

from __future__ import annotations

import re

from rho_kernel.security.redaction import REDACTED

#: A token counts only where no such character precedes it (the check is made on each match,
#: not in the pattern: a pattern that starts with a literal is searched for much faster).
WORD_CHAR = re.compile(r"[A-Za-z0-9_+/\-]")
_END = r"(?![A-Za-z0-9_+/\-])"

#: Applied in order; a rule whose group 1 exists keeps that group (`Bearer `).
TOKEN_RULES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern)
    for pattern in (
        # Anthropic, then OpenAI (sk-, sk-proj-): body ≥ 20, with a digit.
        r"sk-ant-[A-Za-z0-9_\-]{20,}",
        r"sk-(?=[A-Za-z0-9_\-]{0,400}[0-9])[A-Za-z0-9_\-]{20,}",
        # GitHub: classic PAT, OAuth, user-to-server, server-to-server, refresh; fine-grained.
        r"gh[pousr]_[A-Za-z0-9]{36,}",
        r"github_pat_[A-Za-z0-9_]{22,}",
        # GitLab personal, deploy, runner, trigger … tokens.
        r"gl(?:pat|dt|rt|ptt|cbt|soat|ft|agent)-[A-Za-z0-9_\-]{20,}",
        # Slack bot/user/app/… tokens.
        r"xox[abposre]-(?=[A-Za-z0-9\-]{0,400}[0-9])[A-Za-z0-9\-]{10,}",
        # AWS access key ids (long-term and temporary): exactly 16 after the prefix.
        r"AKIA[A-Z0-9]{16}" + _END,
        r"ASIA[A-Z0-9]{16}" + _END,
        # Google API keys.
        r"AIza[A-Za-z0-9_\-]{35}" + _END,
        # Stripe secret and restricted keys, webhook signing secrets.
        r"sk_(?:live|test)_[A-Za-z0-9]{16,}",
        r"rk_(?:live|test)_[A-Za-z0-9]{16,}",
        r"whsec_[A-Za-z0-9]{24,}",
        # JSON Web Tokens: base64url header and payload of JSON objects, then the signature.
        r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",
        # Bearer tokens (with a digit: "Bearer authentication" is prose).
        r"(Bearer +)(?=[A-Za-z0-9._~+/\-]{0,600}[0-9])[A-Za-z0-9._~+/\-]{8,}=*",
        r"(bearer +)(?=[A-Za-z0-9._~+/\-]{0,600}[0-9])[A-Za-z0-9._~+/\-]{8,}=*",
        # HTTP basic credentials.
        r"(Authorization[\"']?\s*[:=]\s*[\"']?[Bb]asic +)[A-Za-z0-9+/]{8,}={0,2}",
        r"(authorization[\"']?\s*[:=]\s*[\"']?[Bb]asic +)[A-Za-z0-9+/]{8,}={0,2}",
    )
)

#: A line that is nothing but an AWS secret access key (as `printenv NAME` shows it): exactly
#: 40 of `A-Za-z0-9/+`, searched after a `\n` (much faster than a multi-line `^`); group 1
#: is the line break and indentation. `bare_aws_secret` then asks for an upper-case letter,
#: a lower-case letter and a digit (a hex digest has no upper and lower case together).
BARE_AWS_SECRET = re.compile(r"(\n[ \t]*)([A-Za-z0-9/+]{40})(?=[ \t\r]*(?:\n|$))")
_UPPER = re.compile(r"[A-Z]")
_LOWER = re.compile(r"[a-z]")
_DIGIT = re.compile(r"[0-9]")


_BASE64_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/=]{60,}\r?")


def bare_aws_secret(value: str, previous_line: str) -> bool:
    """Whether a 40-character line matched by `BARE_AWS_SECRET` reads as a random key: not
    the last line of a base64 block (a certificate's, after a full line of base64)."""
    if _BASE64_LINE.fullmatch(previous_line):
        return False
    return all(kind.search(value) for kind in (_UPPER, _LOWER, _DIGIT))


#: The password in a URL's user info: `scheme://user:PASSWORD@host`.
URL_CREDENTIALS = re.compile(r"(://[^\s:/@'\"]*:)([^\s/@'\"]{3,})(?=@)")

PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
PRIVATE_KEY_END = re.compile(r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")

# Key names whose value is a secret; the name must END with one of these (so `password_hash`,
# `secret_key_name`, `max_tokens` and `token_type` are not).
_SECRET_WORDS = (
    r"password|passwd|passphrase|secret|token|credentials?|_pwd|_pass|-pass"
    r"|(?:api|access|secret|private|auth|signing|encryption|master)[_\-]?key"
)

# A quoted value may start on the next line (`"password":` then `"…"` in formatted JSON),
# after the row prefix a tool shows it with: a diff's `+`/`-`/` `, a line number as `cat -n`,
# `grep -n` (`12:`, `12-`) and rho's read_file (`12#ABCD:`) write it.
_SEPARATOR = (
    r"[\"']?(?P<pre>[ \t]*)(?P<sep>:=|=(?![=>~])|:(?![:/]))"
    r"(?P<post>[ \t]*(?:\r?\n(?:[+\-]|[ \t]*[0-9]+(?:#[A-Za-z]{4})?[:\-\t])?[ \t]*(?=[\"']))?)"
)

#: `key = value`, `key: value`, `KEY=value`, `"key": "value"`, `--key=value`, `?key=value`.
ASSIGNMENT = re.compile(
    r"(?P<word>(?i:"
    + _SECRET_WORDS
    + r"))"
    + _SEPARATOR
    + r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s'\"&]+)"
)
#: Where `ASSIGNMENT` may match, searched in lower-cased text (much faster than ignoring case);
#: a `key` candidate starts `KEY_PREFIX` earlier.
ASSIGNMENT_CANDIDATE = re.compile(
    r"(?:pass(?:word|wd|phrase)|secret|token|credentials?|_pwd|_pass|-pass|key)" + _SEPARATOR
)
KEY_PREFIX = re.compile(r"(?:api|access|secret|private|auth|signing|encryption|master)[_\-]?$")

_PLACEHOLDERS = frozenset(
    {
        "none", "null", "nil", "true", "false", "undefined", "~", "-", "changeme",
        "redacted", "example", "secret", "password", "token", "xxx", "...", "todo",
    }
)  # fmt: skip
_PLACEHOLDER_START = tuple("${<%*&![@#")
_TEMPLATE = re.compile(r"\{|\$\(|%[sdr(]|\[REDACTED\]")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_WORDY = re.compile(r"[A-Za-z_]+")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:$|[(\[?!])")
_NUMBER = re.compile(r"-?[0-9]{1,5}(?:\.[0-9]+)?")
_NAMEISH = re.compile(r"pass|tok|secret|key|cred|pwd", re.IGNORECASE)


def placeholder(text: str) -> bool:
    """An empty value, a null, a reference (`$VAR`, `${…}`, `{{ … }}`, `<token>`), a mask."""
    lowered = text.lower()
    if not text.strip() or lowered in _PLACEHOLDERS or text.startswith(_PLACEHOLDER_START):
        return True
    if _TEMPLATE.search(text) or len(set(text)) == 1:
        return True
    return lowered.startswith("your") or lowered.endswith(("here", "_placeholder"))


def _code_like(value: str) -> bool:
    """An unquoted value that reads as an expression: a name, a call, a type, a small number."""
    if _WORDY.fullmatch(value) or _NUMBER.fullmatch(value):
        return True
    if _IDENTIFIER.fullmatch(value) and _NAMEISH.search(value):
        return True  # `password = password2`, `token = tok1`
    return any(c in value for c in "()[]<>") or _DOTTED.match(value) is not None


def judge_assignment(match: re.Match[str], *, env_style: bool | None = None) -> str | None:
    """The text that replaces `match`'s value (quotes kept), or None when it is no secret.
    `env_style` (default: an upper-case key with no blanks around the separator) redacts an
    unquoted value even when it reads as code."""
    value = match.group("value")
    if value[0] in "\"'":
        inner = value[1:-1]
        if len(inner) < 4 or inner != inner.strip() or placeholder(inner):
            return None
        if _ENV_NAME.fullmatch(inner):  # `secret_key_name = "SECRET_KEY"` names a variable
            return None
        return value[0] + REDACTED + value[-1]
    core = value.rstrip(",;)]}")
    if not core or placeholder(core):
        return None
    if env_style is None:
        env_style = match.group("word").isupper() and not match.group("pre") + match.group("post")
    if not env_style and _code_like(core):
        return None
    return REDACTED + value[len(core) :]


# ── upper-case names with a secret segment (`AWS_SECRET_ACCESS_KEY=…`) ─────────

#: Segments that make an upper-case `NAME_WITH_SEGMENTS` a secret's name.
_SECRET_SEGMENTS = frozenset(
    {
        "SECRET", "SECRETS", "PASS", "PASSWD", "PASSWORD", "PASSWORDS", "PASSPHRASE", "PWD",
        "TOKEN", "TOKENS", "CREDENTIAL", "CREDENTIALS", "CREDS", "PRIVATEKEY",
    }
)  # fmt: skip
#: A last segment that makes the name describe the secret, not hold it (`…_FILE`, `…_MIN_LENGTH`).
_DESCRIBING_SEGMENTS = frozenset(
    {
        "NAME", "NAMES", "FILE", "FILES", "PATH", "DIR", "URL", "URI", "HOST", "PORT", "TYPE",
        "ID", "LENGTH", "LEN", "MIN", "MAX", "SIZE", "COUNT", "ENABLED", "DISABLED", "REF",
        "HEADER", "EXPIRY", "EXPIRES", "EXPIRATION", "TTL", "TIMEOUT", "FIELD", "PARAM", "ENV",
        "VAR", "HASH", "HASHER", "ALGORITHM", "ALGO", "POLICY", "RULES", "FORMAT", "PROMPT",
        "MODE", "LABEL", "ENDPOINT", "REGION", "USER", "USERNAME", "SCOPE", "SCOPES",
        "AUDIENCE", "ISSUER", "LIFETIME", "ROTATION", "DAYS", "SECONDS", "MINUTES", "HOURS",
        "STRENGTH", "COMPLEXITY", "REQUIRED", "RESET", "CHARS", "KIND", "VERSION", "STORE",
        "PROVIDER", "MANAGER", "BACKEND", "LOCATION", "ARN", "KEYNAME",
    }
)  # fmt: skip
#: Where a segmented secret name may be: one of its secret segments, in upper case, in a
#: name followed by `=`.
ENV_NAME_HINT = re.compile(r"(?:SECRET|PASS|PWD|TOKEN|CRED|PRIVATE_?KEY)[A-Z0-9_]*=")
#: `NAME=value` with an upper-case, underscore-segmented name, matched where the name starts.
ENV_ASSIGNMENT = re.compile(
    r"(?P<word>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)(?P<pre>)(?P<sep>=)(?P<post>)"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s'\"&]+)"
)
_NAME_CHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def env_name_start(text: str, position: int) -> int:
    """Where the upper-case name holding `position` starts."""
    while position and text[position - 1] in _NAME_CHAR:
        position -= 1
    return position


def judge_env_assignment(match: re.Match[str]) -> str | None:
    """Like `judge_assignment` for `ENV_ASSIGNMENT`: None unless the name has a secret
    segment and does not describe the secret; a name that ends in its secret segment is an
    env file's (any value but a placeholder), one with the secret inside (`SECRET_KEY_BASE`)
    keeps values that read as code (`true`, `8`, a plain word)."""
    segments = match.group("word").replace("PRIVATE_KEY", "PRIVATEKEY").split("_")
    if len(segments) < 2 or segments[-1] in _DESCRIBING_SEGMENTS:
        return None
    if segments[-1] in _SECRET_SEGMENTS:
        return judge_assignment(match, env_style=True)
    if not _SECRET_SEGMENTS.intersection(segments):
        return None
    return judge_assignment(match, env_style=False)


__all__ = [
    "ASSIGNMENT",
    "ASSIGNMENT_CANDIDATE",
    "BARE_AWS_SECRET",
    "ENV_ASSIGNMENT",
    "ENV_NAME_HINT",
    "KEY_PREFIX",
    "PRIVATE_KEY_BEGIN",
    "PRIVATE_KEY_END",
    "REDACTED",
    "TOKEN_RULES",
    "URL_CREDENTIALS",
    "WORD_CHAR",
    "bare_aws_secret",
    "env_name_start",
    "judge_assignment",
    "judge_env_assignment",
    "placeholder",
]
