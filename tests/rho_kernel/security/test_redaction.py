"""The redactor: every kind of secret in realistic files, and no false positive on source."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from rho_kernel.config.model import RedactionConfig
from rho_kernel.security import REDACTED, Redactor

CORPUS = Path(__file__).parent / "corpus"
_MARKED = re.compile(r"⟦(.*?)⟧", re.DOTALL)


def _positive(name: str) -> tuple[str, str, list[str]]:
    """(input, expected output, secrets) of a positive corpus file (secrets marked ⟦…⟧)."""
    marked = (CORPUS / "positive" / name).read_text(encoding="utf-8")
    return _MARKED.sub(r"\1", marked), _MARKED.sub(REDACTED, marked), _MARKED.findall(marked)


@pytest.mark.parametrize("name", sorted(p.name for p in (CORPUS / "positive").iterdir()))
def test_every_secret_of_the_positive_corpus_is_redacted_and_nothing_else(name: str) -> None:
    text, expected, secrets = _positive(name)
    assert secrets
    redacted = Redactor().redact(text)
    assert redacted == expected
    for secret in secrets:
        assert secret not in redacted


@pytest.mark.parametrize("name", sorted(p.name for p in (CORPUS / "negative").iterdir()))
def test_ordinary_source_of_the_negative_corpus_is_left_alone(name: str) -> None:
    text = (CORPUS / "negative" / name).read_text(encoding="utf-8")
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a key in a longer word is no key; a key longer than usual goes whole
        ("task-runner-configuration-value-2", "task-runner-configuration-value-2"),
        ("key: sk-" + "a1" * 100 + " end", f"key: {REDACTED} end"),
        ("ghp_" + "A" * 45, REDACTED),
        # exactly 16 after AKIA; a longer run is some other identifier
        ("AKIAIOSFODNN7EXAMPLEXYZ", "AKIAIOSFODNN7EXAMPLEXYZ"),
        ("the Bearer authentication scheme", "the Bearer authentication scheme"),
        ("user=x password=swordfish42 host=y", f"user=x password={REDACTED} host=y"),
        ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n(truncated)", REDACTED),
        (
            "postgres://postgres:postgres@localhost/test",
            "postgres://postgres:postgres@localhost/test",
        ),
    ],
)
def test_edges_of_the_built_in_rules(text: str, expected: str) -> None:
    assert Redactor().redact(text) == expected


def test_custom_patterns_apply_after_the_built_ins() -> None:
    redactor = Redactor([r"acme-[0-9a-f]{8}", "x*"])
    assert redactor.redact("id acme-deadbeef ok") == f"id {REDACTED} ok"
    assert redactor.redact("abc") == "abc"  # an empty match replaces nothing


def test_invalid_and_exponential_patterns_are_reported_and_skipped() -> None:
    warnings: list[str] = []
    redactor = Redactor(["[", "(a+)+$", "(a|aa)*b", "ok-[0-9]+"], warn=warnings.append)
    assert len(warnings) == 3
    assert warnings[0].startswith("invalid redaction pattern skipped: '['")
    assert "exponential" in warnings[1] and "exponential" in warnings[2]
    assert redactor.redact("ok-12 " + "a" * 40) == f"{REDACTED} " + "a" * 40


def test_one_config_compiles_once_and_warns_once(capsys: pytest.CaptureFixture[str]) -> None:
    config = RedactionConfig(custom_patterns=["(unclosed-once"])
    first = Redactor.from_config(config)
    assert Redactor.from_config(RedactionConfig(custom_patterns=["(unclosed-once"])) is first
    assert capsys.readouterr().err.count("invalid redaction pattern skipped") == 1


def test_disabled_redacts_nothing() -> None:
    secret = "ghp_" + "b" * 36
    redactor = Redactor.from_config(RedactionConfig(enabled=False))
    assert redactor.redact(secret) == secret
    assert redactor.stream().feed(secret) == secret


@dataclass(frozen=True)
class FullOutput:
    original_size: int
    content: str


class Model(BaseModel):
    note: str
    items: list[str]


def test_details_are_redacted_inside_dicts_lists_dataclasses_and_models() -> None:
    secret = "ghp_" + "c" * 36
    redactor = Redactor()
    details = {"full": FullOutput(10, f"x {secret}"), "lines": [secret, 3], "n": None}
    out = redactor.redact_value(details)
    assert out == {"full": FullOutput(10, f"x {REDACTED}"), "lines": [REDACTED, 3], "n": None}
    model = redactor.redact_value(Model(note=secret, items=["a", secret]))
    assert model == Model(note=REDACTED, items=["a", REDACTED])
    clean = {"a": ["b"]}
    assert redactor.redact_value(clean) is clean


def _stream(chunks: list[str]) -> str:
    stream = Redactor().stream()
    return "".join(stream.feed(chunk) for chunk in chunks) + stream.flush()


def test_a_secret_split_across_chunks_is_still_caught() -> None:
    secret = "sk-proj-" + "Ab3" * 15
    text = f"start\nOPENAI_API_KEY={secret}\nend"
    for cut in range(1, len(text)):
        assert _stream([text[:cut], text[cut:]]) == f"start\nOPENAI_API_KEY={REDACTED}\nend"


def test_a_private_key_block_streamed_line_by_line_is_swallowed_whole() -> None:
    lines = ["log\n", "-----BEGIN RSA PRIVATE KEY-----\n"]
    lines += [f"MIIEpAIBAAKCAQEA{index:04d}\n" for index in range(50)]
    lines += ["-----END RSA PRIVATE KEY-----\n", "after\n"]
    shown = _stream(lines)
    assert shown == f"log\n{REDACTED}\nafter\n"


def test_a_long_line_is_released_before_it_ends_without_cutting_a_secret() -> None:
    secret = "ghp_" + "d" * 36
    chunk = ("word " * 2000) + secret + " " + ("word " * 2000)
    stream = Redactor().stream()
    first = stream.feed(chunk)
    assert first  # not all held back
    shown = first + stream.flush()
    assert secret not in shown and shown.count(REDACTED) == 1


def test_a_long_line_is_never_cut_between_a_marker_and_its_secret() -> None:
    opaque = "Zq7" * 400  # the blank after `Bearer` is the last one before the cut
    for padding in range(0, 40):
        text = "w " * (4000 + padding) + f"Bearer {opaque}"
        stream = Redactor().stream()
        shown = stream.feed(text) + stream.flush()
        assert opaque not in shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # `…_pass` names
        ("db_pass=Kx93vPq20", f"db_pass={REDACTED}"),
        ("DB_PASS=Kx93vPq20", f"DB_PASS={REDACTED}"),
        ("smtp-pass: 'm4il-S3nd'", f"smtp-pass: '{REDACTED}'"),
        ("bypass=abc123", "bypass=abc123"),
        ("first_pass = compute()", "first_pass = compute()"),
        # a quoted value on the next line
        ('"password":\n  "s3cr3t-P@ss"', f'"password":\n  "{REDACTED}"'),
        ('"password":\r\n\t"s3cr3t-P@ss"', f'"password":\r\n\t"{REDACTED}"'),
        ('"password":\n  null', '"password":\n  null'),
        ("password:\n  - item", "password:\n  - item"),
        # a bare AWS secret access key on its own line
        ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", REDACTED),
        (
            "$ printenv X\nwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\r\n",
            f"$ printenv X\n{REDACTED}\r\n",
        ),
        ("9fceb02d0ae598e95dc970b74767f19372d61af8", "9fceb02d0ae598e95dc970b74767f19372d61af8"),
        (
            "key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        # upper-case names with a secret segment
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", f"AWS_SECRET_ACCESS_KEY={REDACTED}"),
        ("export SECRET_KEY_BASE=9f8e7d6c5b4a3928", f"export SECRET_KEY_BASE={REDACTED}"),
        ("MY_TOKEN_V2=abc123def456", f"MY_TOKEN_V2={REDACTED}"),
        ("MAILER_PRIVATE_KEY_PEM=LS0tLS1CRUdJ", f"MAILER_PRIVATE_KEY_PEM={REDACTED}"),
        ("PASSWORD_MIN_LENGTH=8", "PASSWORD_MIN_LENGTH=8"),
        ("PASSWORD_MIN_LENGTH = 8", "PASSWORD_MIN_LENGTH = 8"),
        ("GITHUB_TOKEN_FILE=/run/secrets/t", "GITHUB_TOKEN_FILE=/run/secrets/t"),
        ("SECRET_ROTATION_DAYS=30", "SECRET_ROTATION_DAYS=30"),
        ("PASS_THROUGH=true", "PASS_THROUGH=true"),
        ("PWD=/home/ci", "PWD=/home/ci"),
        ("secret_key_ref:\n  name: db", "secret_key_ref:\n  name: db"),
        ('password_hash = "x"', 'password_hash = "x"'),
    ],
)
def test_names_and_shapes_added_in_the_second_round(text: str, expected: str) -> None:
    assert Redactor().redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '"password":\n  "CorrectHorseBattery42"\n',
        '12#ZPMQ:  "password":\n13#VRWS:    "CorrectHorseBattery42",\n',  # read_file's rows
        '3:  "password":\n4-    "CorrectHorseBattery42"\n',  # grep -n -A1
        '     3\t  "password":\n     4\t    "CorrectHorseBattery42"\n',  # cat -n
        '+  "password":\n+    "CorrectHorseBattery42"\n',  # a diff
    ],
)
def test_a_value_on_the_line_after_its_name_is_redacted_whole_and_streamed(text: str) -> None:
    expected = text.replace("CorrectHorseBattery42", REDACTED)
    assert Redactor().redact(text) == expected
    for cut in range(1, len(text)):
        assert _stream([text[:cut], text[cut:]]) == expected, cut


def test_a_private_key_encoded_again_in_base64_is_redacted() -> None:
    import base64

    pem = b"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
    encoded = base64.b64encode(pem * 3).decode()
    line = f"    client-key-data: {encoded}\n"
    assert Redactor().redact(line) == f"    client-key-data: {REDACTED}\n"
    public = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIC" * 3).decode()
    assert Redactor().redact(f"certificate-authority-data: {public}") == (
        f"certificate-authority-data: {public}"
    )
