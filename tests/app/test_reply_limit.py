"""A reply the server stopped at the completion limit says so, over a loopback Chat Completions
server (llama.cpp ends such a stream with ``finish_reason: "length"``)."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import make_app
from steiner_tui.app.transcript import NoticeEntry, ReplyEntry, UserEntry
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.helpers import finish, said, send
from tests.providers.loopback import LoopbackServer, sse_data, sse_reply
from tests.providers.protocols import chunk


def chat(server: LoopbackServer) -> MainModel:
    provider = OpenAIChatProvider("llama", "sk-test", f"{server.url}/v1", max_retries=0)
    return MainModel("llama", "smollm2", provider, provider.model_info("smollm2"))


def replying(finish_reason: str) -> list[bytes]:
    return [
        chunk({"role": "assistant", "content": "the files are"}),
        chunk({}, finish=finish_reason),
        sse_data("[DONE]"),
    ]


async def test_a_reply_cut_at_the_completion_limit_is_marked(app_for: AppFactory) -> None:
    with LoopbackServer(sse_reply(replying("length")), sse_reply(replying("stop"))) as server:
        app = app_for(chat(server))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "what files?")
            await finish(pilot)
            [limit] = [text for text in said(app) if "completion limit" in text]
            assert limit.startswith("llama/smollm2: the reply stopped at the completion limit (")
            await send(pilot, "again")
            await finish(pilot)
            assert len([text for text in said(app) if "completion limit" in text]) == 1


async def test_a_resumed_session_shows_the_limit_where_it_was(
    project: Path, config_dir: Path
) -> None:
    with LoopbackServer(sse_reply(replying("length")), sse_reply(replying("stop"))) as server:
        app = make_app(request_for(project, config_dir, chat(server), record=True))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "what files?")
            await finish(pilot)
            await send(pilot, "again")
            await finish(pilot)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        entries = resumed.workbench.conversation.entries
        kinds = [type(e) for e in entries[:5]]
        assert kinds == [UserEntry, ReplyEntry, NoticeEntry, UserEntry, ReplyEntry]
        limit = entries[2]
        assert isinstance(limit, NoticeEntry) and limit.kind == "warning"
        assert limit.text.startswith("llama/smollm2: the reply stopped at the completion limit (")
        assert len([text for text in said(resumed) if "completion limit" in text]) == 1


async def test_a_resumed_session_shows_the_limit_of_a_reply_a_compaction_kept(
    project: Path, config_dir: Path
) -> None:
    """The log places a warning in the generation it came in; a compaction that keeps the cut
    reply (the last turn) left its warning behind, so the resumed reply had none."""
    turns = [sse_reply(replying("stop")) for _ in range(3)]
    summary = [chunk({"content": "The person asked about files."}), chunk({}, finish="stop")]
    with LoopbackServer(
        *turns, sse_reply(replying("length")), sse_reply([*summary, sse_data("[DONE]")])
    ) as server:
        app = make_app(request_for(project, config_dir, chat(server), record=True))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            first = "one? " + "with the details of the task " * 12  # outweighs the summary
            for text in (first, "two?", "three?", "what files?"):
                await send(pilot, text)
                await finish(pilot)
            await send(pilot, "/compact")
            await finish(pilot)
            assert app.session.runner.lineage.active.id == 1
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        entries = resumed.workbench.conversation.entries
        [reply] = [i for i, e in enumerate(entries) if isinstance(e, ReplyEntry)][-1:]
        limit = entries[reply + 1]
        assert isinstance(limit, NoticeEntry) and limit.kind == "warning"
        assert limit.text.startswith("llama/smollm2: the reply stopped at the completion limit (")
