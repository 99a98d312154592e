"""Test fixtures with obvious placeholders."""

import os

import pytest

USER = {"name": "alice", "password": "", "token": None}
ADMIN_PASSWORD = os.environ["ADMIN_PASSWORD"]
password = ""
password=None
token = None
secret = "..."
api_key = "<your-api-key>"
API_TOKEN = "${API_TOKEN}"
DB_PASSWORD = "{{ vault_db_password }}"
placeholder_password = "changeme"
masked_token = "********"
redacted = {"password": "[REDACTED]"}


@pytest.fixture
def creds(monkeypatch):
    monkeypatch.setenv("PASSWORD", "")
    monkeypatch.setattr("app.settings.SECRET_KEY", os.environ.get("SECRET_KEY"))
    return {"username": "bob", "password": password, "token": token}


def test_login_without_password(creds):
    assert creds["password"] == ""
    assert creds["token"] is None
