"""TLS of the model clients: a plain http:// endpoint loads no CA certificates (nothing TLS is
needed to reach it), while an https:// endpoint is still verified in full, so a self-signed
server is refused, also when it shares a client with http:// ones; the verifying clients share
one context, whose certificate authorities are read once per process."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from listed_provider import provider  # type: ignore[import-not-found]

from rho_kernel.providers import http
from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.http import build_client
from rho_kernel.providers.models import (
    check_all_reachable,
    check_reachable,
    fetch_models,
    list_all_models,
)
from rho_kernel.testing.replies import text_reply
from rho_kernel.testing.server import ScriptedServer
from rho_kernel.testing.streams import collect_stream


@pytest.fixture
def ca_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every time a TLS context loads CA certificates (a bundle file or the system's), from a
    process that has not made its shared verifying context yet."""
    loads: list[str] = []
    http._verifying_context.cache_clear()
    real_locations = ssl.SSLContext.load_verify_locations
    real_defaults = ssl.SSLContext.load_default_certs

    def load_verify_locations(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append("locations")
        real_locations(self, *args, **kwargs)

    def load_default_certs(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append("defaults")
        real_defaults(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", load_verify_locations)
    monkeypatch.setattr(ssl.SSLContext, "load_default_certs", load_default_certs)
    return loads


@pytest.fixture
def self_signed(tmp_path: Path) -> Iterator[str]:
    """The base URL (`https://127.0.0.1:PORT/v1`) of a TLS server on loopback whose
    certificate is self-signed for 127.0.0.1: no client that verifies may talk to it."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a self-signed certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-nodes", "-days", "1"),
            *("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            try:  # the handshake fails on the client's side: that is the point
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)
            except (OSError, ssl.SSLError):
                pass
            finally:
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    address = listener.getsockname()
    yield f"https://127.0.0.1:{address[1]}/v1"
    stop.set()
    socket.create_connection(address).close()  # wakes the accept() up to see `stop`
    thread.join(timeout=30)
    listener.close()


async def test_a_plain_http_model_request_loads_no_ca_certificates(ca_loads: list[str]) -> None:
    with ScriptedServer([text_reply("hello")]) as server:
        service = ChatCompletionsService(server.chat_url, None, "prov")
        try:
            _, response = await asyncio.wait_for(collect_stream(service), 60)
        finally:
            await service.aclose()
    assert response.text == "hello"
    assert ca_loads == []


@pytest.mark.parametrize("probe", ["fetch", "reachable", "list_all", "all_reachable"])
async def test_plain_http_model_listings_load_no_ca_certificates(
    ca_loads: list[str], probe: str
) -> None:
    with ScriptedServer(models=["m1"]) as first, ScriptedServer(models=["m2"]) as second:
        one, two = provider(first.models_url, "one"), provider(second.models_url, "two")
        if probe == "fetch":
            assert await fetch_models(one, timeout=60) == ["m1"]
        elif probe == "reachable":
            assert await check_reachable(one, timeout=60)
        elif probe == "list_all":
            assert await list_all_models([one, two], timeout=60) == (
                [("m1", "one"), ("m2", "two")],
                [],
            )
        else:
            assert await check_all_reachable([one, two], timeout=60) == [True, True]
    assert ca_loads == []


async def test_an_https_model_request_is_still_verified(
    self_signed: str, ca_loads: list[str]
) -> None:
    service = ChatCompletionsService(f"{self_signed}/chat/completions", None, "prov")
    try:
        with pytest.raises(ProviderError) as info:
            await asyncio.wait_for(collect_stream(service), 60)
    finally:
        await service.aclose()
    assert info.value.kind == "connect" and info.value.reason == "tls"
    assert "certificate" in info.value.message.lower()
    assert ca_loads  # the verifying context was built


async def test_an_https_listing_is_still_verified(self_signed: str) -> None:
    secure = provider(f"{self_signed}/models", "secure")
    with pytest.raises(ProviderError) as info:
        await fetch_models(secure, timeout=60)
    assert info.value.reason == "tls"
    assert not await check_reachable(secure, timeout=60)


async def test_https_sharing_a_listing_client_with_http_is_still_verified(
    self_signed: str, ca_loads: list[str]
) -> None:
    with ScriptedServer(models=["m1"]) as server:
        plain, secure = provider(server.models_url, "plain"), provider(f"{self_signed}/models")
        models, errors = await list_all_models([plain, secure], timeout=60)
        reachable = await check_all_reachable([plain, secure], timeout=60)
    assert models == [("m1", "plain")]
    assert len(errors) == 1 and "certificate" in errors[0].lower()
    assert reachable == [True, False]
    assert ca_loads


@pytest.mark.parametrize(
    ("endpoints", "loads_cas"),
    [
        (["http://127.0.0.1:1/v1/chat/completions"], False),
        (["HTTP://localhost:1/v1/models", " http://[::1]:2/v1"], False),
        (["https://api.example.com/v1/chat/completions"], True),
        (["http://127.0.0.1:1/v1", "https://api.example.com/v1"], True),
        (["http://[::1/v1"], True),  # not a URL: nothing is loosened for it
        ([], True),
    ],
)
async def test_only_all_plain_http_clients_skip_the_ca_bundle(
    ca_loads: list[str], endpoints: list[str], loads_cas: bool
) -> None:
    client = build_client(endpoints=endpoints)
    await client.aclose()
    assert bool(ca_loads) is loads_cas


async def test_a_client_built_for_http_refuses_an_https_url(self_signed: str) -> None:
    client = build_client(endpoints=["http://127.0.0.1:1/v1/chat/completions"])
    try:
        with pytest.raises(httpx.ConnectError, match=r"(?i)certificate"):
            await asyncio.wait_for(client.get(f"{self_signed}/models"), 60)
    finally:
        await client.aclose()


async def test_the_authorities_are_read_once_for_every_verifying_client(
    ca_loads: list[str],
) -> None:
    clients = [
        build_client(),
        build_client(endpoints=["https://api.example.com/v1/chat/completions"]),
        build_client(connect_timeout=2, endpoints=["HTTPS://api.example.com/v1/models"]),
    ]
    for client in clients:
        await client.aclose()
    assert ca_loads == ["locations"]
