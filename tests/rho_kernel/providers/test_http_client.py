"""The model clients' TLS: the certificate authorities are read once per process, a client for
a plain-HTTP endpoint reads none, and no client accepts a certificate nobody vouches for."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from rho_kernel.providers import http


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An https server on 127.0.0.1 with a self-signed certificate; its URL and certificate."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"),
            *("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.005,), daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_port}/", cert
    server.shutdown()
    server.server_close()


@pytest.fixture
def authorities_read(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every reading of certificate authorities from now on (the shared context forgotten)."""
    read: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def load_verify_locations(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        read.append(args or kwargs)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", load_verify_locations)
    http._tls_context.cache_clear()
    return read


async def test_the_authorities_are_read_once_for_every_client(
    authorities_read: list[object],
) -> None:
    clients = [
        http.build_client(),
        http.build_client(endpoint="https://api.example.com/v1/chat/completions"),
        http.build_client(connect_timeout=2, endpoint="HTTPS://api.example.com/v1/models"),
    ]
    for client in clients:
        await client.aclose()
    assert len(authorities_read) == 1


async def test_a_client_for_a_plain_http_endpoint_reads_no_authorities(
    authorities_read: list[object],
) -> None:
    for endpoint in ("http://127.0.0.1:1/v1/chat/completions", "HTTP://localhost/v1/models"):
        await http.build_client(endpoint=endpoint).aclose()
    assert authorities_read == []


@pytest.mark.parametrize("endpoint", [None, "http://127.0.0.1:1/v1/chat/completions"])
async def test_no_client_accepts_a_certificate_nobody_vouches_for(
    tls_server: tuple[str, Path], endpoint: str | None
) -> None:
    """A plain-HTTP client that is asked for https anyway verifies and refuses, as the
    others do; the same server passes once its certificate is trusted."""
    url, cert = tls_server
    async with http.build_client(endpoint=endpoint) as client:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(url)
    trusting = ssl.create_default_context(cafile=str(cert))
    async with httpx.AsyncClient(verify=trusting, trust_env=False) as client:
        assert (await client.get(url)).text == "hello"
