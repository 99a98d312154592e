"""Private keys, certificates and public keys made for tests: random bodies behind the DER
and OpenSSH headers real ones start with, wrapped as their tools wrap them."""

from __future__ import annotations

import base64
import random

#: A PKCS#8 RSA-2048 key's DER header (`MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ`).
PKCS8_RSA_HEADER = bytes.fromhex(
    "308204bd020100300d06092a864886f70d0101010500048204a7308204a302010002820101"
)
#: A certificate's start up to its public key, and an SPKI header (the same length mod 3 as
#: the key's header, so a modulus both hold shows the same base64 in both).
CERTIFICATE_HEADER = bytes.fromhex(
    "308203413082022902140a0b0c300d06092a864886f70d01010b0500300d310b3009060355040613025553"
)
OPENSSH_HEADER = (
    b"openssh-key-v1\x00" + b"\x00\x00\x00\x04none" * 2 + b"\x00\x00\x00\x00\x00\x00\x00\x01"
)


def wrap(data: bytes, width: int) -> list[str]:
    """`data` in base64, as lines of `width` characters (the last maybe shorter)."""
    text = base64.b64encode(data).decode()
    return [text[i : i + width] for i in range(0, len(text), width)]


def modulus(seed: int) -> bytes:
    """257 random bytes: the part of a key its certificate and public key hold too."""
    return random.Random(seed).randbytes(257)


def rsa_key(seed: int = 1, label: str = "PRIVATE KEY") -> str:
    """A PEM private key (`-----BEGIN {label}-----`, 26 body lines of 64 characters and a
    shorter one, `-----END …`), ending with a line break."""
    secret = random.Random(seed + 1000).randbytes(935)
    body = wrap(PKCS8_RSA_HEADER + modulus(seed) + secret, 64)
    return "\n".join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"]) + "\n"


def openssh_key(seed: int = 2) -> str:
    """An OpenSSH private key: body lines of 70 characters."""
    body = wrap(OPENSSH_HEADER + random.Random(seed).randbytes(1200), 70)
    return (
        "\n".join(
            ["-----BEGIN OPENSSH PRIVATE KEY-----", *body, "-----END OPENSSH PRIVATE KEY-----"]
        )
        + "\n"
    )


def body_lines(key: str) -> list[str]:
    """The base64 lines of a PEM text (no armour)."""
    return [line for line in key.splitlines() if line and not line.startswith("-----")]


def certificate(seed: int = 1) -> str:
    """A PEM certificate holding the modulus of `rsa_key(seed)`, at the same alignment."""
    der = CERTIFICATE_HEADER + modulus(seed) + random.Random(seed + 2000).randbytes(500)
    body = wrap(der, 64)
    return "\n".join(["-----BEGIN CERTIFICATE-----", *body, "-----END CERTIFICATE-----"]) + "\n"


def ssh_public_key(seed: int = 1) -> str:
    """An `ssh-rsa AAAA…` line holding the modulus of `rsa_key(seed)`, at its alignment."""
    blob = b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01" + modulus(seed)
    return f"ssh-rsa {base64.b64encode(blob).decode()} me@host\n"
