"""A scripted OpenAI-compatible HTTP server for tests (also for third-party plugin authors).

`ScriptedServer` listens on 127.0.0.1 on an ephemeral port and serves from a background thread,
so it works from synchronous and asynchronous tests alike. Each POST to a path ending in
`/chat/completions` or `/responses` takes the next reply from the script, in order; when the
script is empty the server answers HTTP 500 with a JSON error so the test fails visibly.
`GET .../models` lists the configured models (or serves `models_body`, with `models_status`,
after `models_delay` seconds). Every request is recorded.

By default each reply ends its connection, as the replies' own framing needs (a body ends
when the connection closes). `keep_alive=True` serves HTTP/1.1 instead: each reply's body is
sent chunked and the connection stays open for the client's next request, as a hosted
provider's does (the loop benchmark measures with it).

    with ScriptedServer([text_reply("hello")]) as server:
        ...  # point the client at server.chat_url
        assert server.requests[0].json["model"] == "m"
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import sys
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from rho_kernel.testing.replies import ErrorReply, RawReply, Reply

EMPTY_SCRIPT_MESSAGE = "scripted server: no reply left in the script"

_CONNECTION_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


@dataclass
class RecordedRequest:
    """One request the server received (headers with lower-case names), and the number of
    the connection that carried it (the server numbers connections from 1 as it accepts
    them: with `keep_alive=True`, requests sent on one connection share its number)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any | None
    connection: int = 0


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # never wait for handler threads (a hang must not block stop())
    allow_reuse_address = True

    def __init__(self, scripted: ScriptedServer) -> None:
        self.scripted = scripted
        super().__init__(("127.0.0.1", 0), _KeepAliveHandler if scripted.keep_alive else _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks up the host's FQDN, which may stall without DNS.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], _CONNECTION_ERRORS):
            return  # the client went away (e.g. a cancelled stream): not a server bug
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection; bodies end when it closes
    disable_nagle_algorithm = True
    server: _HTTPServer

    @property
    def stop_event(self) -> threading.Event:
        return self.server.scripted.stop_event

    def setup(self) -> None:
        super().setup()
        self.connection_number = self.server.scripted._connected()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _record(self) -> RecordedRequest:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        parsed: Any | None = None
        if body:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            json=parsed,
            connection=self.connection_number,
        )
        self.server.scripted._record(request)
        return request

    def _serve(self, reply: Reply) -> None:
        with contextlib.suppress(*_CONNECTION_ERRORS):
            reply.write(self)
        self.close_connection = True

    def do_POST(self) -> None:
        request = self._record()
        path = urlsplit(request.path).path.rstrip("/")
        if path.endswith("/chat/completions") or path.endswith("/responses"):
            self._serve(self.server.scripted._next_reply())
        else:
            self._serve(ErrorReply(404, {"error": {"message": f"no such path: {path}"}}))

    def do_GET(self) -> None:
        request = self._record()
        path = urlsplit(request.path).path.rstrip("/")
        if path.endswith("/models"):
            scripted = self.server.scripted
            if scripted.models_delay > 0 and self.stop_event.wait(scripted.models_delay):
                return  # the server is stopping
            payload = scripted.models_body
            if payload is None:
                models = [{"id": name, "object": "model"} for name in scripted.models]
                payload = {"object": "list", "data": models}
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self._serve(RawReply(scripted.models_status, body, "application/json"))
        else:
            self._serve(ErrorReply(404, {"error": {"message": f"no such path: {path}"}}))


class _ChunkedBody:
    """A response body stream that frames each write as one HTTP/1.1 chunk."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def write(self, data: bytes) -> int:
        if data:
            self._raw.write(b"%x\r\n%s\r\n" % (len(data), data))
        return len(data)

    def flush(self) -> None:
        self._raw.flush()

    def finish(self) -> None:
        """The last chunk: the body ends and the connection stays open."""
        self._raw.write(b"0\r\n\r\n")
        self._raw.flush()


class _KeepAliveHandler(_Handler):
    """Serves HTTP/1.1: a reply's body goes out chunked, and the connection stays open."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self._chunked = _ChunkedBody(self.wfile)
        self._framing = False  # serving a reply
        self._chunking = False  # its headers are sent: its body goes out chunked

    def send_header(self, keyword: str, value: str) -> None:
        if self._framing and keyword.lower() in ("connection", "content-length"):
            return  # the replies frame their bodies for HTTP/1.0; chunking replaces that
        super().send_header(keyword, value)

    def end_headers(self) -> None:
        if self._framing:
            super().send_header("Transfer-Encoding", "chunked")
        super().end_headers()
        if self._framing:
            self._chunking = True
            self.wfile = self._chunked  # type: ignore[assignment]

    def _serve(self, reply: Reply) -> None:
        raw = self.wfile
        self._framing = True
        try:
            reply.write(self)
            if self._chunking:
                self._chunked.finish()
            else:
                self.close_connection = True  # the reply sent no headers: nothing to frame
        except _CONNECTION_ERRORS:
            self.close_connection = True
        finally:
            self._framing = self._chunking = False
            self.wfile = raw


class ScriptedServer:
    """A real HTTP server on 127.0.0.1 that answers model requests from a script of replies.

    `GET .../models` answers `{"object": "list", "data": [{"id": ...}]}` built from `models`;
    `models_body` replaces that with any JSON value (or raw bytes, sent as they are),
    `models_status` sets the status (default 200) and `models_delay` makes the answer wait
    that many seconds (cut short when the server stops). `keep_alive=True` keeps each
    connection open for the next request and sends the bodies chunked (HTTP/1.1).
    """

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        models: Sequence[str] = (),
        models_body: Any | None = None,
        models_status: int = 200,
        models_delay: float = 0.0,
        keep_alive: bool = False,
    ) -> None:
        self.models: list[str] = list(models)
        self.keep_alive = keep_alive
        self.models_body = models_body
        self.models_status = models_status
        self.models_delay = models_delay
        self.requests: list[RecordedRequest] = []
        self.stop_event = threading.Event()
        self._script: deque[Reply] = deque(replies)
        self._cond = threading.Condition()
        self._connections = 0
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ScriptedServer:
        """Bind an ephemeral port and start serving in a daemon thread; returns self."""
        if self._httpd is not None:
            return self
        self.stop_event.clear()
        self._httpd = _HTTPServer(self)
        # `stop` waits for the serving loop to see the request, which it checks once per
        # poll interval: a short one keeps stopping (once per test) from idling the caller.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.005},
            name=f"ScriptedServer:{self._httpd.server_port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket, without waiting for hung replies."""
        httpd = self._httpd
        if httpd is None:
            return
        self._httpd = None
        self.stop_event.set()  # wakes HangReply and delayed SSEReply writers
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The listening port (the server must be started)."""
        if self._httpd is None:
            raise RuntimeError("ScriptedServer is not running: call start() first")
        return self._httpd.server_port

    @property
    def url(self) -> str:
        """The base URL, `http://127.0.0.1:<port>`."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def chat_url(self) -> str:
        """The Chat Completions endpoint."""
        return self.url + "/v1/chat/completions"

    @property
    def responses_url(self) -> str:
        """The Responses endpoint."""
        return self.url + "/v1/responses"

    @property
    def models_url(self) -> str:
        """The model list endpoint."""
        return self.url + "/v1/models"

    def add(self, *replies: Reply) -> None:
        """Append replies to the script (thread-safe)."""
        with self._cond:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """How many replies are still waiting in the script."""
        with self._cond:
            return len(self._script)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `n` requests arrived; return them (TimeoutError otherwise)."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= n, timeout):
                raise TimeoutError(
                    f"ScriptedServer got {len(self.requests)} request(s), expected {n}"
                )
            return list(self.requests)

    def _connected(self) -> int:
        """The number of a connection just accepted."""
        with self._cond:
            self._connections += 1
            return self._connections

    def _record(self, request: RecordedRequest) -> None:
        with self._cond:
            self.requests.append(request)
            self._cond.notify_all()

    def _next_reply(self) -> Reply:
        with self._cond:
            if self._script:
                return self._script.popleft()
        return ErrorReply(500, {"error": {"message": EMPTY_SCRIPT_MESSAGE}})


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


__all__ = ["EMPTY_SCRIPT_MESSAGE", "RecordedRequest", "ScriptedServer", "free_port"]
