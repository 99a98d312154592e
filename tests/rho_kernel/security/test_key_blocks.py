"""`KeyBlockLines`: the lines of a whole file inside private key blocks."""

from __future__ import annotations

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RedactionConfig, RhoConfig
from rho_kernel.security import REDACTED, KeyBlockLines, SandboxRoot
from rho_kernel.tools import ToolContext

BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
]


def _key(kind: str = "RSA", eol: str = "\n") -> str:
    label = f"{kind} PRIVATE KEY" if kind else "PRIVATE KEY"
    lines = [f"-----BEGIN {label}-----", *BODY, f"-----END {label}-----"]
    return eol.join(lines) + eol


@pytest.mark.parametrize("kind", ["RSA", "EC", "OPENSSH", "ENCRYPTED", "DSA", ""])
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_block_is_found_from_begin_to_end(kind: str, eol: str) -> None:
    text = "x = 1\n" + _key(kind, eol) + "y = 2\n"
    blocks = KeyBlockLines.of(text)
    assert blocks.ranges == ((2, 6),)
    assert [n for n in range(1, 9) if n in blocks] == [2, 3, 4, 5, 6]
    assert KeyBlockLines.of(text.encode()).ranges == blocks.ranges


def test_an_unterminated_block_runs_to_the_end_of_the_file() -> None:
    text = "a\n-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(BODY)
    blocks = KeyBlockLines.of(text)
    assert blocks.ranges == ((2, 5),)
    assert KeyBlockLines.of("-----BEGIN OPENSSH PRIVATE KEY-----").ranges == ((1, 1),)


def test_several_blocks_and_a_block_on_one_line() -> None:
    one = "k = '-----BEGIN EC PRIVATE KEY-----\\nMHc\\n-----END EC PRIVATE KEY-----'"
    text = "\n".join([one, "plain", _key("EC").rstrip("\n"), "tail", _key("RSA").rstrip("\n")])
    blocks = KeyBlockLines.of(text)
    assert blocks.ranges == ((1, 1), (3, 7), (9, 13))
    assert 2 not in blocks and 8 not in blocks


def test_certificates_and_public_keys_are_not_blocks() -> None:
    text = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    text += "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n"
    assert not KeyBlockLines.of(text)
    assert not KeyBlockLines.of("no markers at all\n" * 1000)


def test_hide_replaces_shown_lines_by_their_real_numbers() -> None:
    text = "a\n" + _key()
    blocks = KeyBlockLines.of(text)
    lines = text.split("\n")
    assert blocks.hide(lines[2:4], 3) == [REDACTED, REDACTED]
    assert blocks.hide(["a"], 1) == ["a"]
    rows = "3#ABCD:" + BODY[0] + "\n4#WXYZ:" + BODY[1]
    assert blocks.hide_text(rows, 3, keep_to=":") == f"3#ABCD:{REDACTED}\n4#WXYZ:{REDACTED}"


def test_the_tool_context_follows_the_redaction_switch(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = _key()
    on = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    assert on.key_block_lines(text).ranges == ((1, 5),)
    config = RhoConfig(redaction=RedactionConfig(enabled=False))
    off = ToolContext(root=SandboxRoot(tmp_path), config=config, cancel=CancelToken())
    assert not off.key_block_lines(text)
