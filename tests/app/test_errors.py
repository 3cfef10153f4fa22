"""Errors stay in the conversation with what the user can do; F5 resends once, not twice."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session_factory import ERROR_ABOVE, NO_ANSWER
from steiner_tui.app.app import make_app
from steiner_tui.app.transcript import (
    CompactionRunEntry,
    ErrorEntry,
    NoticeEntry,
    ReplyEntry,
    UserEntry,
    error_entry,
)
from steiner_tui.app.widgets.error_row import ErrorRow, error_content
from steiner_tui.engine.events import WarningEvent
from steiner_tui.engine.provider import (
    READ_AT_START,
    ChatRequest,
    ModelInfo,
    ProviderError,
    ProviderEvent,
    Remedy,
    StreamDone,
    StreamText,
    StreamUsage,
)
from steiner_tui.providers import retry_wait
from steiner_tui.providers.errors import CallContext, remedies_for
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from tests.app.conftest import SESSION_ID, SIZE, AppFactory, request_for
from tests.app.fakes import INFO, FailingProvider, fake_model
from tests.app.helpers import finish, inspected, mid_reply, said, send, static_text
from tests.providers.loopback import LoopbackServer, json_reply, sse_reply
from tests.providers.protocols import DONE, chunk, openai_error


async def test_a_provider_error_is_an_entry_with_its_remedies(app_for: AppFactory) -> None:
    provider = FailingProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "hello there")
        await finish(pilot)
        errors = [e for e in screen.conversation.entries if isinstance(e, ErrorEntry)]
        assert len(errors) == 1
        assert errors[0].code == "rate_limited" and errors[0].retry == "F5"
        row = screen.conversation.query_one(ErrorRow)
        text = static_text(row)
        assert "429 Too Many Requests: slow down [bold]now[/]" in text  # literal, not markup
        assert "wait a minute, then retry — F5 resends your message" in text
        assert "switch to another model (/model)" in text

        await pilot.press("f5")
        await finish(pilot)
        users = [m for m in app.session.driver.runner.conversation if m.role == "user"]
        assert len(users) == 1  # resent, not stored twice
        assert len(provider.requests) == 2
        shown = [e for e in screen.conversation.entries if isinstance(e, UserEntry)]
        assert len(shown) == 1
        assert isinstance(screen.conversation.entries[-1], ReplyEntry)
        assert screen.conversation.entries[-1].text == "Answered."
        await pilot.press("f5")  # nothing unanswered: does nothing
        await finish(pilot)
        assert len(provider.requests) == 2


DROPPED = ProviderError(
    "connection",
    "fake: the connection was dropped mid-stream after 3 events",
    remedies=(Remedy("retry", "retry: the reply was cut off, what streamed is kept"),),
)


async def test_f5_sends_the_message_again_after_an_error_cut_its_reply_off(
    app_for: AppFactory,
) -> None:
    """A reply cut off by an error (the server went away mid-stream) is kept, marked
    interrupted; the error says F5 resends, and F5 sends the message once more after it."""
    provider = FailingProvider(DROPPED, partial="Once upon a")
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "tell me a story")
        await finish(pilot)
        assert "F5 resends your message" in static_text(screen.conversation.query_one(ErrorRow))
        f5 = screen.active_bindings["f5"]  # its tooltip (footer, help) names this case too
        assert f5.binding.id == "main.retry" and f5.enabled
        assert "or whose reply an error or the app stopping cut off" in f5.binding.tooltip
        await pilot.press("f5")
        await finish(pilot)
        assert len(provider.requests) == 2
        runner = app.session.driver.runner
        assert [(m.role, m.content, m.incomplete) for m in runner.conversation] == [
            ("user", "tell me a story", False),
            ("assistant", "Once upon a", True),
            ("user", "tell me a story", False),
            ("assistant", "Answered.", False),
        ]
        assert isinstance(screen.conversation.entries[-1], ReplyEntry)
        await pilot.press("f5")  # answered: nothing to send again
        await finish(pilot)
        assert len(provider.requests) == 2


async def test_f5_after_resume_sends_the_message_whose_reply_was_cut_off(
    project: Path, config_dir: Path
) -> None:
    provider = FailingProvider(DROPPED, partial="Once upon a")
    app = make_app(request_for(project, config_dir, fake_model(provider), record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "tell me a story")
        await finish(pilot)
    provider.failures = 0
    request = request_for(project, config_dir, fake_model(provider), record=True, resume="latest")
    resumed = make_app(request)
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await pilot.press("f5")
        await finish(pilot)
        conversation = resumed.session.driver.runner.conversation
        assert [(m.role, m.content) for m in conversation[-2:]] == [
            ("user", "tell me a story"),
            ("assistant", "Answered."),
        ]


async def test_f5_does_not_resend_a_reply_stopped_with_esc(app_for: AppFactory) -> None:
    async with mid_reply(app_for) as (app, pilot, _):
        await pilot.press("escape")
        await finish(pilot)
        assert app.session.driver.runner.conversation[-1].incomplete
        assert not app.workbench.check_action("retry", ())
        await pilot.press("f5")
        await finish(pilot)
        assert not app.workbench.busy
        assert app.session.driver.runner.conversation[-1].role == "assistant"


@dataclass
class SummaryDownProvider:
    """Answers the conversation; every summary call fails as a server that is down does."""

    alias: str = "fake"
    stateful: bool = False

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        if request.compaction:
            raise ProviderError("connection", "fake: connection refused (127.0.0.1:9)")
        yield StreamText("Answered.")
        yield StreamUsage(100, 10)
        yield StreamDone()


async def test_a_failed_compaction_stays_in_the_conversation(app_for: AppFactory) -> None:
    """Why a compaction failed (the summary's server is down) is a notice in the conversation,
    not only a toast: a window error that follows it otherwise reads as if nothing was tried."""
    app = app_for(fake_model(SummaryDownProvider()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for text in ("first", "second"):
            await send(pilot, text)
            await finish(pilot)
        await send(pilot, "/compact")
        await finish(pilot)
        entries = app.workbench.conversation.entries
        runs = [e for e in entries if isinstance(e, CompactionRunEntry)]
        assert runs[-1].kind == "error"  # the compaction's own entry says why it failed
        assert "compaction failed" in runs[-1].ended and "connection refused" in runs[-1].ended


async def test_a_failed_summary_request_says_so_in_the_inspector(app_for: AppFactory) -> None:
    """Its Cache and Cost cells were blank, as a request's still waiting for its usage."""
    app = app_for(fake_model(SummaryDownProvider()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for text in ("first", "second", "/compact"):
            await send(pilot, text)
            await finish(pilot)
        cells, summary = await inspected(pilot, "kind", "cause", "cost")
        assert cells == ("compaction", "failed", "$0")  # the offline model's: free
        assert summary.endswith(
            "Failed before the provider reported usage: cost $0 (a free model), cache unknown · "
            "a summary cut short is not kept\n"
            "fake/offline: fake: connection refused (127.0.0.1:9)"
        )


async def test_compact_works_after_an_error(app_for: AppFactory) -> None:
    app = app_for(fake_model(FailingProvider(failures=1)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        for text in ("first", "second", "third"):  # each outweighs a summary
            await send(pilot, f"{text}, " + "with the details of the task " * 12)
            await finish(pilot)
        await send(pilot, "/compact")
        await finish(pilot)
        entries = screen.conversation.entries
        assert isinstance(entries[1], ErrorEntry)  # the error stays where it happened
        last = entries[-1]
        assert isinstance(last, CompactionRunEntry) and last.kind == "compaction"
        assert last.ended.startswith("compacted into generation 1")
        assert not screen.busy


async def test_a_resumed_session_shows_the_same_error_entry(
    project: Path, config_dir: Path
) -> None:
    app = make_app(request_for(project, config_dir, fake_model(FailingProvider()), record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "hello there")
        await finish(pilot)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        entries = resumed.workbench.conversation.entries
        kinds = [type(e).__name__ for e in entries]
        assert kinds[:2] == ["UserEntry", "ErrorEntry"]
        error = entries[1]
        assert isinstance(error, ErrorEntry) and error.code == "rate_limited"
        assert [r.action for r in error.remedies] == ["wait", "switch_model"]
        assert "slow down [bold]now[/]" in error.text
        # It said "send a message to go on", which would meet the error again.
        assert ERROR_ABOVE in said(resumed) and NO_ANSWER not in said(resumed)


async def test_a_resumed_session_shows_the_warnings_the_live_one_kept(
    project: Path, config_dir: Path
) -> None:
    """Only a reply cut at its limit came back; a failed compaction, a rejected summary, ``off``
    nearing the limit and a log written anew were lost on resume (the log has them all)."""
    app = make_app(request_for(project, config_dir, fake_model(SummaryDownProvider()), record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "first")
        await finish(pilot)
        shutil.rmtree(config_dir / "sessions" / SESSION_ID)
        await send(pilot, "second")
        await finish(pilot)
        sink = app.session.runner.sink
        sink.emit(WarningEvent("summary_rejected", "summary rejected: it lost 2 files"))
        await send(pilot, "/compact")
        await finish(pilot)
        sink.emit(WarningEvent("compaction_off", "compaction is off: 95% of the hard limit"))
        await send(pilot, "third")
        await finish(pilot)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        entries = resumed.workbench.conversation.entries
        shown = [
            e.text.split(" /")[0].split(":")[0] if isinstance(e, NoticeEntry) else type(e).__name__
            for e in entries
            if not isinstance(e, NoticeEntry) or e.kind == "warning"
        ]
        assert shown == [
            "UserEntry",
            "ReplyEntry",
            "UserEntry",
            "ReplyEntry",
            "the session folder",
            "summary rejected",
            "compaction failed",
            "compaction is off",
            "UserEntry",
            "ReplyEntry",
        ]


async def test_a_retry_wait_stays_in_the_conversation(
    project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's retry delay was said only in a toast, gone after a few seconds of a wait of up
    to a minute (and again per retry): the status line said "generating" meanwhile."""
    monkeypatch.setattr(retry_wait, "RETRY_WAIT_CAP", 0.05)
    limited = json_reply(429, openai_error("Rate limit reached"), {"retry-after": "3600"})
    answer = [chunk({"content": "Answered."}), chunk({}, finish="stop"), DONE]
    with LoopbackServer(limited, sse_reply(answer)) as server:
        provider = OpenAIChatProvider("llama", "sk-test", f"{server.url}/v1", max_retries=1)
        main = MainModel("llama", "smollm2", provider, provider.model_info("smollm2"))
        app = make_app(request_for(project, config_dir, main, record=True))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "hello")
            await finish(pilot)
            kinds = [type(e).__name__ for e in app.workbench.conversation.entries]
            assert kinds == ["UserEntry", "NoticeEntry", "ReplyEntry"]
            [wait] = said(app)
            assert wait.startswith("llama/smollm2: HTTP 429: the server asks to wait 3600 s")
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        shown = [
            e.text if isinstance(e, NoticeEntry) else type(e).__name__
            for e in resumed.workbench.conversation.entries
            if not isinstance(e, NoticeEntry) or e.kind == "warning"
        ]
        assert shown == ["UserEntry", wait, "ReplyEntry"]


async def test_a_setting_to_correct_is_not_offered_f5(app_for: AppFactory) -> None:
    """A local server not answering: F5 goes with checking the server, not with correcting
    its base_url, which the running app does not read again."""
    call = CallContext("llama/smollm2", alias="llama", base_url="http://127.0.0.1:9/v1")
    refused = ProviderError(
        "connection",
        "llama/smollm2: could not connect to the API at http://127.0.0.1:9/v1/chat/completions",
        remedies=remedies_for("connection", msgspec.structs.replace(call, self_hosted=True)),
    )
    app = app_for(fake_model(FailingProvider(refused)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "hello there")
        await finish(pilot)
        lines = static_text(app.workbench.conversation.query_one(ErrorRow)).splitlines()
        assert lines[2:] == [
            "  · check that http://127.0.0.1:9/v1 is up and reachable — F5 resends your message",
            "  · or, if the server is elsewhere, correct [providers.llama] base_url: the"
            " configuration is read at start (start again with -c to go on with this session)",
            "  · switch to another model (/model)",
        ]


def test_a_setting_to_correct_alone_is_not_offered_f5() -> None:
    """A 404 on a base_url's path, a threshold not below a server's window: F5 sends to the
    same place with the same settings, yet the row ended "F5 sends your message again"."""
    missing = ProviderError(
        "bad_request",
        "llama/smollm2: nothing answers at http://127.0.0.1:9/chat/completions (HTTP 404)",
        remedies=(Remedy("fix_config", "check base_url under [providers.llama]"),),
    )
    threshold = "compaction_threshold_tokens (20000) must be below the context window (16384)"
    path = error_content(error_entry("bad_request", missing.message, missing.remedies, "F5"))
    assert "F5" not in path.plain
    window = error_content(error_entry("config", threshold, retry_key="F5")).plain
    assert "F5" not in window
    assert window.endswith(f"  · correct it in config.toml: {READ_AT_START}")


async def test_the_retry_key_is_said_once_when_two_remedies_resend(app_for: AppFactory) -> None:
    """A llama.cpp server that went away: "check that … is up" and "send the message again"
    both resend, and both lines ended "— F5 resends your message"."""
    refused = ProviderError(
        "connection",
        "llama/smollm2: could not connect to the API at http://127.0.0.1:9/v1/chat/completions",
        remedies=(
            Remedy("check_server", "check that http://127.0.0.1:9/v1 is up and reachable"),
            Remedy("retry", "send the message again"),
        ),
    )
    app = app_for(fake_model(FailingProvider(refused)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "hello there")
        await finish(pilot)
        text = static_text(app.workbench.conversation.query_one(ErrorRow))
        assert text.count("F5 resends your message") == 1
        assert "is up and reachable — F5 resends your message" in text
        assert "  · send the message again\n" in text + "\n"
