"""Endpoint URLs as rho shows them, and the check that one can work at all.

An endpoint may carry credentials (`https://user:secret@host/…`, `?api_key=…`). Requests use
the real URL; everything a person sees (stderr, `listProviders`, error messages) uses
`mask_url`, which keeps the URL recognisable and replaces only the secrets with `***`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

MASK = "***"

_SECRET_NAME = re.compile(
    r"key|token|secret|passw|pwd|auth|signature|credential|session|^sig$|^pass$|^code$",
    re.IGNORECASE,
)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")


def _mask_pairs(text: str) -> str:
    """Mask the values of secret-looking `name=value` pairs in a query (or fragment)."""
    pairs = text.split("&")
    for index, pair in enumerate(pairs):
        name, sep, value = pair.partition("=")
        if sep and value and _SECRET_NAME.search(name):
            pairs[index] = f"{name}={MASK}"
    return "&".join(pairs)


def mask_url(url: str) -> str:
    """`url` with its credentials masked: userinfo becomes `***@`, and the values of
    secret-looking query (and fragment) parameters (`api_key`, `key`, `token`, `sig`, …)
    become `***`. Everything else is kept as written, so the user recognises the URL.

    A URL without a scheme (`user:pw@host:1234/v1?key=…`) is masked the same way. Safe to
    apply twice; text without userinfo or query comes back unchanged.
    """
    scheme_end = url.find("://")
    start = scheme_end + 3 if scheme_end >= 0 else 0
    authority_end = len(url)
    for stop in "/?#":
        found = url.find(stop, start)
        if 0 <= found < authority_end:
            authority_end = found
    authority = url[start:authority_end]
    at = authority.rfind("@")
    if at >= 0:
        authority = f"{MASK}@{authority[at + 1 :]}"
    rest = url[authority_end:]
    path, hash_mark, fragment = rest.partition("#")
    path, question, query = path.partition("?")
    if question:
        query = _mask_pairs(query)
    if hash_mark:
        fragment = _mask_pairs(fragment)
    return f"{url[:start]}{authority}{path}{question}{query}{hash_mark}{fragment}"


def mask_urls_in(text: str) -> str:
    """`text` with every URL in it passed through `mask_url` (for messages that quote URLs)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(_mask_match, text)


def _mask_match(match: re.Match[str]) -> str:
    url = match.group(0)
    trimmed = url.rstrip(".,;:!)]}")  # sentence punctuation after a URL is not part of it
    return mask_url(trimmed) + url[len(trimmed) :]


def endpoint_problem(url: str) -> str | None:
    """Why `url` cannot be a model endpoint (not http(s), or no host), or None when it can."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an http:// or https:// URL"
    if not host:
        return "has no host"
    return None


def is_local_endpoint(endpoint: str) -> bool:
    """True for localhost, *.localhost, 127.0.0.0/8, 0.0.0.0 and ::1 (False for a bad URL)."""
    try:
        host = (urlsplit(endpoint).hostname or "").lower()
    except ValueError:
        return False
    return (
        host in ("localhost", "::1", "0:0:0:0:0:0:0:1", "0.0.0.0")
        or host.endswith(".localhost")
        or host.startswith("127.")
    )


__all__ = ["MASK", "endpoint_problem", "is_local_endpoint", "mask_url", "mask_urls_in"]
