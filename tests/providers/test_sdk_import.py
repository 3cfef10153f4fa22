"""The SDKs are imported on the first call, in a worker thread: never on the caller's loop.

A fresh interpreter records, with an audit hook, which thread imports each SDK during the first
call of each provider (which then fails to connect to a closed port, as against a server that is
down).
"""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import asyncio, json, socket, sys, threading

importers = {}

def hook(event, args):
    if event == "import" and args[0] in ("anthropic", "openai"):
        importers.setdefault(args[0], threading.current_thread() is threading.main_thread())

sys.addaudithook(hook)

from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest, ProviderError
from steiner_tui.providers.anthropic_provider import AnthropicProvider
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from steiner_tui.providers.openai_responses import OpenAIResponsesProvider

probe = socket.socket()
probe.bind(("127.0.0.1", 0))
url = "http://127.0.0.1:%d" % probe.getsockname()[1]
probe.close()

async def first_call(provider):
    request = ChatRequest(model="m", messages=(Message("user", "hi"),))
    try:
        async for _ in provider.stream(request):
            pass
    except ProviderError as error:
        return error.kind
    finally:
        await provider.aclose()

async def main():
    kinds = []
    for cls in (AnthropicProvider, OpenAIChatProvider, OpenAIResponsesProvider):
        kinds.append(await first_call(cls("p", "sk", url, timeout=5, max_retries=0)))
    return kinds

kinds = asyncio.run(main())
print(json.dumps({"on_main_thread": importers, "kinds": kinds}))
"""


def test_sdks_are_imported_off_the_event_loop_thread() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    ).stdout
    report = json.loads(out)
    assert report["on_main_thread"] == {"anthropic": False, "openai": False}
    assert report["kinds"] == ["connection", "connection", "connection"]
