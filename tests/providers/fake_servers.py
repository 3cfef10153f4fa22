"""Small loopback HTTP servers that answer like llama.cpp, vLLM, LM Studio and Ollama.

Each serves the paths one kind of server serves, with bodies shaped like the real one's (trimmed
to the fields around the ones read), and does what that server does for the other paths (404,
or LM Studio's 200 with an error object). Used by the server-limits tests and the app's.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LLAMA_CPP", "LM_STUDIO", "OLLAMA", "VLLM", "FakeServer", "Routes", "serving", "url"]

Routes = Mapping[tuple[str, str], tuple[int, Any]]
"""``(method, path) -> (status, JSON body)``."""

LLAMA_CPP: Routes = {
    ("GET", "/props"): (
        200,
        {
            "default_generation_settings": {"params": {"n_predict": -1}, "n_ctx": 4096},
            "total_slots": 1,
            "model_path": "/models/tiny.gguf",
            "chat_template_caps": {"supports_tools": False, "supports_tool_calls": False},
            "build_info": "b6000",
        },
    ),
    ("GET", "/v1/models"): (
        200,
        {
            "object": "list",
            "data": [
                {
                    "id": "/models/tiny.gguf",
                    "object": "model",
                    "owned_by": "llamacpp",
                    "meta": {"n_vocab": 49152, "n_ctx": 4096, "n_ctx_train": 8192},
                }
            ],
        },
    ),
}
VLLM: Routes = {
    ("GET", "/v1/models"): (
        200,
        {
            "object": "list",
            "data": [
                {
                    "id": "Qwen/Qwen2.5-Coder-7B-Instruct",
                    "object": "model",
                    "owned_by": "vllm",
                    "root": "Qwen/Qwen2.5-Coder-7B-Instruct",
                    "max_model_len": 16384,
                },
                {"id": "other", "object": "model", "owned_by": "vllm", "max_model_len": 2048},
            ],
        },
    )
}
_LM_STUDIO_UNKNOWN = (200, {"error": "Unexpected endpoint or method. (GET /props)"})
LM_STUDIO: Routes = {
    ("GET", "/props"): _LM_STUDIO_UNKNOWN,
    ("GET", "/v1/models"): (
        200,
        {"object": "list", "data": [{"id": "qwen2.5-7b-instruct", "object": "model"}]},
    ),
    ("GET", "/api/v0/models"): (
        200,
        {
            "object": "list",
            "data": [
                {
                    "id": "qwen2.5-7b-instruct",
                    "object": "model",
                    "type": "llm",
                    "state": "loaded",
                    "max_context_length": 32768,
                    "loaded_context_length": 8192,
                },
                {
                    "id": "nomic-embed",
                    "type": "embeddings",
                    "state": "not-loaded",
                    "max_context_length": 2048,
                },
            ],
        },
    ),
}
OLLAMA: Routes = {
    ("GET", "/v1/models"): (
        200,
        {
            "object": "list",
            "data": [{"id": "qwen2.5-coder:7b", "object": "model", "owned_by": "library"}],
        },
    ),
    ("POST", "/api/show"): (
        200,
        {
            "modelfile": "FROM qwen2.5-coder:7b",
            "parameters": f'{"num_ctx":<31}12288\n{"stop":<31}"<|im_end|>"',
            "details": {"family": "qwen2", "parameter_size": "7.6B"},
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
            "capabilities": ["completion", "tools", "insert"],
        },
    ),
}


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, method: str) -> None:
        if method == "POST":
            length = int(self.headers.get("content-length") or 0)
            self.server.bodies.append(json.loads(self.rfile.read(length)))
        self.server.seen.append((method, self.path))
        status, body = self.server.routes.get((method, self.path), (404, {"error": "not found"}))
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, routes: Routes, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.routes = routes
        self.seen: list[tuple[str, str]] = []
        self.bodies: list[Any] = []


@contextmanager
def serving(routes: Routes, port: int = 0) -> Iterator[FakeServer]:
    """Serve ``routes`` on 127.0.0.1, on ``port`` (0: a free one), until the block ends."""
    server = FakeServer(routes, port)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def url(server: FakeServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}/v1"
