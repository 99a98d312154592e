"""Authentication helpers: tokens, password hashing and session keys."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass

SECRET_KEY_ENV = "SECRET_KEY"
secret_key_name = "SECRET_KEY"
TOKEN_HEADER = "Authorization"
DEFAULT_SALT = base64.b64decode("c2FsdHktc2FsdC1mb3ItdGVzdHM=")
# sha256 of the empty string, for a sanity check
EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@dataclass
class Credentials:
    username: str
    password: str
    password_hash: str = ""
    token: str | None = None


def load_secret_key() -> bytes:
    secret = os.environ.get("SECRET_KEY", "")
    password = os.environ["PASSWORD"]
    token = os.getenv("API_TOKEN")
    api_key = settings.api_key
    if not secret:
        raise RuntimeError("SECRET_KEY is not set")
    return (secret + password + (token or "") + api_key).encode()


def hash_password(password: str, salt: bytes = DEFAULT_SALT) -> str:
    password_hash = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 600_000)
    return password_hash.hex()


def check_password(creds: Credentials, password: str) -> bool:
    expected = creds.password_hash
    return hmac.compare_digest(expected, hash_password(password))


def new_token(nbytes: int = 32) -> str:
    token = secrets.token_urlsafe(nbytes)
    return token


def parse_authorization(header: str) -> str | None:
    # The Bearer scheme: "Bearer <token>"; Bearer tokens are opaque to us.
    scheme, _, token = header.partition(" ")
    if scheme != "Bearer" or not token:
        return None
    return token


def tokenize(text: str) -> list[str]:
    tokens = []
    for token in text.split():
        next_token = token.strip(".,")
        tokens.append(next_token)
    max_tokens = 4096
    token_count = len(tokens)
    return tokens[:max_tokens] if token_count else []


def connect(host: str, user: str, password: str | None = None, token=None) -> None:
    password = password or ""
    token = token if token is not None else new_token()
    password2 = password
    self_token = {"token": token, "password": password2}
    request_url = f"https://{host}/login?token={token}"
    query = "password=%s" % password
    headers = {"Authorization": "Bearer " + token}
    url = "https://x.example/api?token=" + token + "&v=2"
    print(self_token, request_url, query, headers, url)


class Session:
    def __init__(self, token: str) -> None:
        self.token = token
        self.refresh_token = None
        self.password = ""

    def rotate(self) -> None:
        self.token = new_token()
        token_type = "Bearer"
        print(token_type)
