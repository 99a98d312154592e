"""Endpoint URLs as shown to people (credentials masked) and the usable-endpoint check."""

from __future__ import annotations

import pytest

from rho_kernel.providers import endpoint_problem, mask_url
from rho_kernel.providers.urls import mask_urls_in


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "https://user:hunter2@example.com/v1/chat/completions",
            "https://***@example.com/v1/chat/completions",
        ),
        ("http://token@localhost:1234/v1", "http://***@localhost:1234/v1"),
        # An unencoded "@" in the password: everything up to the last "@" is userinfo.
        ("https://u:p@ss@host.example/v1", "https://***@host.example/v1"),
        (
            "https://host.example/v1/chat?api_key=sk-123&model=x&key=abc",
            "https://host.example/v1/chat?api_key=***&model=x&key=***",
        ),
        (
            "https://h.example/v1?token=t&access_token=a&X-Api-Key=k&sig=s&password=p",
            "https://h.example/v1?token=***&access_token=***&X-Api-Key=***&sig=***&password=***",
        ),
        ("https://h.example/v1#access_token=abc", "https://h.example/v1#access_token=***"),
        ("https://h.example/v1?api_key=", "https://h.example/v1?api_key="),
        (
            "http://localhost:1234/v1/chat/completions",
            "http://localhost:1234/v1/chat/completions",
        ),
        ("https://h.example/v1?flag&limit=3", "https://h.example/v1?flag&limit=3"),
        ("me:pw@localhost:1234/v1?key=abc", "***@localhost:1234/v1?key=***"),
        ("not a url", "not a url"),
        ("", ""),
    ],
)
def test_mask_url_hides_credentials_and_keeps_the_rest(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_mask_url_is_idempotent() -> None:
    once = mask_url("https://a:b@h.example/v1?key=abc")
    assert mask_url(once) == once == "https://***@h.example/v1?key=***"


def test_urls_inside_a_message_are_masked_and_punctuation_kept() -> None:
    text = (
        "could not connect to https://me:pw@h.example/v1?key=abc (refused); "
        "see 'http://x.example/?token=t'. Or (https://y.example/a?api_key=z)."
    )
    assert mask_urls_in(text) == (
        "could not connect to https://***@h.example/v1?key=*** (refused); "
        "see 'http://x.example/?token=***'. Or (https://y.example/a?api_key=***)."
    )
    assert mask_urls_in("no url here") == "no url here"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://localhost:1234/v1/chat/completions", None),
        ("https://user:pw@api.example.com/v1/responses", None),
        ("localhost:1234/v1/chat/completions", "http"),
        ("ftp://example.com/v1", "http"),
        ("file:///etc/passwd", "http"),
        ("http:///v1/chat/completions", "no host"),
        ("http://", "no host"),
        ("http://localhost:notaport/v1", "not a valid URL"),
        ("http://[::1/v1", "not a valid URL"),
    ],
)
def test_endpoint_problem(url: str, problem: str | None) -> None:
    found = endpoint_problem(url)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
