"""The built-in redaction rules: credential shapes, and how an assigned value is judged.

Token rules match a known prefix at the start of a word followed by the characters the
service uses (`task-…` holds no `sk-` key; a token inside a base64 blob is no token). Where
a service's tokens are random, the body must contain a digit, so prose ("Bearer
authentication", a kebab-case name after `sk-`) is left alone. A token longer than its
service's usual length is redacted whole: a leftover tail would still leak.
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

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

#: The password in a URL's user info: `scheme://user:PASSWORD@host`.
URL_CREDENTIALS = re.compile(r"(://[^\s:/@'\"]*:)([^\s/@'\"]{3,})(?=@)")

PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
PRIVATE_KEY_END = re.compile(r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")

# Key names whose value is a secret; the name must END with one of these (so `password_hash`,
# `secret_key_name`, `max_tokens` and `token_type` are not).
_SECRET_WORDS = (
    r"password|passwd|passphrase|secret|token|credentials?|_pwd"
    r"|(?:api|access|secret|private|auth|signing|encryption|master)[_\-]?key"
)

_SEPARATOR = r"[\"']?(?P<pre>[ \t]*)(?P<sep>:=|=(?![=>~])|:(?![:/]))(?P<post>[ \t]*)"

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
    r"(?:pass(?:word|wd|phrase)|secret|token|credentials?|_pwd|key)" + _SEPARATOR
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


def judge_assignment(match: re.Match[str]) -> str | None:
    """The text that replaces `match`'s value (quotes kept), or None when it is no secret."""
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
    env_style = match.group("word").isupper() and not match.group("pre") + match.group("post")
    if not env_style and _code_like(core):
        return None
    return REDACTED + value[len(core) :]


__all__ = [
    "ASSIGNMENT",
    "ASSIGNMENT_CANDIDATE",
    "KEY_PREFIX",
    "PRIVATE_KEY_BEGIN",
    "PRIVATE_KEY_END",
    "REDACTED",
    "TOKEN_RULES",
    "URL_CREDENTIALS",
    "WORD_CHAR",
    "judge_assignment",
    "placeholder",
]
