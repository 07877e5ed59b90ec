"""A small OpenAI-compatible chat server for the tests: real HTTP on 127.0.0.1, canned answers, faults.

    with StubLLM(lambda messages: '["Q1?", "Q2?"]') as stub:
        stub.faults += ["429", "timeout"]        # the next two requests fail this way
        LLM(LLMSettings(mode="live", base_url=stub.base_url, ...))

Faults, one per request in order: "429" (rate limit), "500" (server error), "timeout" (answers after
`delay` seconds, later than the client's timeout), "malformed" (a chatty answer with no JSON list),
"drop" (the connection is closed without an answer), "400" (a request the server refuses), "401" and "403" (the key is refused), "404" (no
such model), "html" (status 200 with an HTML page, as a proxy's login page), "empty_choices" (200 with
`choices: []`), "null_content" (200 with `content: null`), "length" (200, the answer cut at max_tokens:
`finish_reason: "length"`), "content_filter" (200, stopped by a filter), "trickle" (200, then one byte of the body every
`delay / 20` seconds, never finished: no read waits long enough to time out), "gzip" (200 with the answer
gzip-compressed, `Content-Encoding: gzip`, whatever the client asked for), "deep" (200 with a JSON body
nested 100,000 arrays deep), "error_body" (200 with an error object and no choices, as some proxies answer).
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HTML = "<!doctype html><html><head><title>Sign in</title></head><body>Please sign in.</body></html>"
CHATTY = "Sure! I would look into several things here, for instance the source and the date. Hope this helps"


class StubLLM:
    def __init__(self, answer: Callable[[list[dict]], str], delay: float = 1.0):
        self.answer, self.delay = answer, delay
        self.faults: list[str] = []
        self.requests: list[dict] = []  # JSON bodies received, in order
        self.auth: list[str | None] = []  # Authorization headers received
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> StubLLM:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict | str) -> None:
                html = isinstance(body, str)
                data = body.encode() if html else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8" if html else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    stub.auth.append(self.headers.get("Authorization"))
                    fault = stub.faults.pop(0) if stub.faults else None
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                if fault in ("400", "401", "403", "404", "429", "500"):
                    return self._send(int(fault), {"error": {"message": f"injected {fault}", "type": "stub"}})
                if fault == "redirect":  # to a stub of the same answers: a followed redirect would answer
                    self.send_response(302)
                    key = (self.headers.get("Authorization") or "").split()[-1:] or ["none"]
                    self.send_header("Location", f"{stub.base_url}/chat/completions?token={key[0]}")  # key echoed
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                if fault == "drop":
                    self.close_connection = True
                    return self.connection.shutdown(socket.SHUT_RDWR)
                if fault == "short":  # an answer cut off: its headers promise more than its body holds
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    self.wfile.write(b'{"id": "cut')
                    self.wfile.flush()
                    self.close_connection = True
                    return self.connection.shutdown(socket.SHUT_RDWR)
                if fault == "html":
                    return self._send(200, HTML)
                if fault in ("gzip", "deep"):
                    data = b"[" * 100_000 + b"]" * 100_000
                    if fault == "gzip":
                        data = gzip.compress(json.dumps({"choices": [{"message": {"content": "A" * 1000}}]}).encode())
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    if fault == "gzip":
                        self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return None
                if fault == "error_body":
                    self._send(200, {"error": {"message": "model overloaded, try later", "type": "overloaded"}})
                    return None
                if fault == "timeout":
                    time.sleep(stub.delay)
                if fault == "trickle":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(1 << 20))
                    self.end_headers()
                    try:
                        while True:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                            time.sleep(stub.delay / 20)
                    except OSError:  # the client gave up
                        self.close_connection = True
                        return None
                content = (
                    CHATTY
                    if fault == "malformed"
                    else None
                    if fault == "null_content"
                    else stub.answer(body["messages"])
                )
                choices = (
                    []
                    if fault == "empty_choices"
                    else [
                        {
                            "index": 0,
                            "finish_reason": fault if fault in ("length", "content_filter") else "stop",
                            "message": {"role": "assistant", "content": content},
                        }
                    ]
                )
                self._send(
                    200,
                    {
                        "id": f"stub-{len(stub.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "stub"),
                        "choices": choices,
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
