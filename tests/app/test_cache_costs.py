"""The context panel says what each request cost and why the cache missed, over a loopback
Anthropic server whose usage reports cache reads and writes (a fixed clock moved by the test)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.inspector_requests import RequestTable
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.workbench_session import WorkbenchSession
from steiner_tui.engine.prices import FREE
from steiner_tui.providers.anthropic_provider import AnthropicProvider
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.helpers import finish, inspected, mid_reply, notices, send, static_text
from tests.providers.loopback import LoopbackServer, Reply, sse_reply
from tests.providers.protocols import block_start, block_stop, delta, message_end, text
from tests.providers.protocols import message_start as start

SnapCompare = Callable[..., bool]
MODEL = "claude-sonnet-4-6"
SNAPSHOT_MODEL = "claude-sonnet-4-20250514"


def reply(read: int, write: int) -> Reply:
    parts = [start(25, read, write), block_start(0, {"type": "text", "text": ""})]
    return Reply(parts=[*parts, text(0, "ok"), block_stop(0), *message_end("end_turn", 12)])


def anthropic(server: LoopbackServer, model: str = MODEL) -> MainModel:
    provider = AnthropicProvider("anthropic", "sk-ant-test", server.url, max_retries=0)
    return MainModel("anthropic", model, provider, provider.model_info(model))


def notes(app: SteinerApp) -> str:
    return static_text(app.workbench.budget.query_one("#budget-notes", Static))


async def test_each_cause_is_in_the_panel_with_tokens_and_dollars(app_for: AppFactory) -> None:
    replies = (reply(0, 41_800), reply(41_800, 900), reply(0, 42_700), reply(0, 43_600))
    with LoopbackServer(*replies) as server:
        app = app_for(anthropic(server))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "first")
            await finish(pilot)
            panel = notes(app)
            assert "cost #1 $0.16 · session $0.16" in panel
            assert "cache #1: first request" in panel
            assert "cache expires in 5 min (TTL 5 min)" in panel
            assert "  /model: rewrites ~41,800 cached tokens ≈ $0.16" in panel
            assert "  /compact: rewrites ~" in panel
            assert "  skill or threshold: appends after the conversation: cache kept" in panel
            # The time left counts down between views (the panel's clock, given here).
            app.workbench.budget.tick_cache_clock(elapsed=240)
            assert "cache expires in 60 s (TTL 5 min)" in notes(app)
            app.workbench.budget.tick_cache_clock(elapsed=400)
            assert "cache expired 100 s ago (TTL 5 min)" in notes(app)
            assert "before you act" not in notes(app)  # nothing cached is left to lose

            screen = app.workbench
            screen.commands.toggle_skill(screen.hold.controller.skill_rows()[0].name)
            screen.refresh_budget()
            await finish(pilot)
            assert (
                "next request: appends after the conversation: cache kept; keeps ~41,800 tok"
                in notes(app)
            )
            await send(pilot, "second")
            await finish(pilot)
            assert "cache #2: appends after the conversation: cache kept" in notes(app)

            app.session.runner.clock.advance(timedelta(minutes=7))
            screen.refresh_budget()
            await finish(pilot)
            assert "cache expired 2 min ago (TTL 5 min)" in notes(app)
            await send(pilot, "third")
            await finish(pilot)
            panel = notes(app)
            assert (
                "cache #3: idle 7 min > 5 min TTL: the cache expired; "
                "rewrote 42,700 tok ≈ $0.16" in panel
            )

            app.session.runner.switch_model(anthropic(server, "claude-haiku-4-5"))
            await send(pilot, "fourth")
            await finish(pilot)
            panel = notes(app)
            assert "cache #4: model changed: claude-sonnet-4-6 → claude-haiku-4-5" in panel
            assert "rewrote 42,700 tok ≈ $0.05" in panel

            await pilot.press("f2")
            await finish(pilot)
            table = app.screen.query_one(RequestTable)
            rows = [
                tuple(str(table.get_cell(key, column)) for column in ("reuse", "cause", "cost"))
                for key in ("0", "1", "2", "3")
            ]
            # The reuse is what the provider read of the prompt: #2 41,800 of 42,725; #3's
            # cache had expired (it was the share of its messages the request before had).
            assert rows == [
                ("·····   0%", "first", "$0.16"),
                ("████▉  98%", "kept", "$0.02"),
                ("·····   0%", "idle $0.16", "$0.16"),
                ("·····   0%", "model $0.05", "$0.05"),
            ]
            summary = static_text(app.screen.query_one("#request-summary", Static))
            assert summary.endswith(
                "Cost $0.05 · cache: model changed: claude-sonnet-4-6 → claude-haiku-4-5 "
                "(a cache belongs to one model); rewrote 42,700 tok ≈ $0.05"
            )
            # c: the costliest miss, #3's expired cache ($0.16 against #4's $0.05).
            await pilot.press("c")
            await finish(pilot)
            assert table.cursor_row == 2 and app.screen.focused is table
            summary = static_text(app.screen.query_one("#request-summary", Static))
            assert "cache: idle 7 min > 5 min TTL" in summary


async def test_the_offline_models_cache_reuse_is_not_known(app_for: AppFactory) -> None:
    """It reports no prompt cache: #2, after a tool call, said 60% (the share of its messages
    #1 had), a figure no provider reported; the Cache column says why there is none."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, "show me README.md")
        await finish(pilot)
        assert len(app.session.snapshots) == 2  # the tool call's request, then the answer's
        cells, _ = await inspected(pilot, "reuse", "cause", row=1)
    assert cells == ("—", "uncached")


async def test_with_no_cache_miss_c_says_so(app_for: AppFactory) -> None:
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await finish(pilot)
        await send(pilot, "hello")
        await finish(pilot)
        await pilot.press("f2")
        await finish(pilot)
        await pilot.press("c")
        await finish(pilot)
        assert "no cache miss in this session" in notices(messages)
        assert app.workbench.prompt.text == ""  # a key of the inspector, not text


async def test_a_request_cancelled_with_esc_says_so_in_the_inspector(
    app_for: AppFactory,
) -> None:
    """Its Cache and Cost cells were blank, as a request's still waiting for its usage. Its
    model is free (``offline``): its cost is known all the same."""
    async with mid_reply(app_for) as (_, pilot, _):
        await pilot.press("escape")
        await finish(pilot)
        cells, summary = await inspected(pilot, "cause", "cost", row=0)
        assert cells == ("cancelled", "$0")  # a free model's (a priced one's: unknown)
        assert summary.endswith(
            "Cancelled by you before the provider reported usage: cost $0 (a free model), cache "
            "unknown · the 14 characters of reply streamed are kept, marked interrupted"
        )


async def test_a_cancelled_request_says_so_again_after_a_resume(app_for: AppFactory) -> None:
    """The log keeps why a request got no usage: resumed, its row and detail read as live."""
    async with mid_reply(app_for, record=True) as (_, pilot, _):
        await pilot.press("escape")
        await finish(pilot)
    resumed = app_for(record=True, resume="latest")
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        cells, summary = await inspected(pilot, "cause", "cost", row=0)
        assert cells == ("cancelled", "$0")  # a free model's (a priced one's: unknown)
        assert summary.endswith(
            "Cancelled by you before the provider reported usage: cost $0 (a free model), cache "
            "unknown · the 14 characters of reply streamed are kept, marked interrupted"
        )


async def test_a_request_that_failed_says_so_and_why_in_the_inspector(
    app_for: AppFactory,
) -> None:
    """Its Cache and Cost cells were blank, as a request's still waiting for its usage."""
    parts = [start(25, 0, 0), block_start(0, {"type": "text", "text": ""}), text(0, "so far")]
    with LoopbackServer(sse_reply(parts, end="drop")) as server:
        app = app_for(anthropic(server))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "hello")
            await finish(pilot)
            cells, summary = await inspected(pilot, "cause", "cost", row=0)
            assert cells == ("failed", "unknown")
            assert summary.endswith(
                "Failed before the provider reported usage: cost and cache unknown · "
                "the 6 characters of reply streamed are kept, marked interrupted\n"
                "anthropic/claude-sonnet-4-6: the connection was cut mid-reply after 3 "
                "events: the server closed it before the reply was complete"
            )


async def test_after_a_model_switch_nothing_is_cached_for_the_new_model(
    app_for: AppFactory,
) -> None:
    """A cache belongs to one model: once switched, the panel does not count down the old
    model's cache nor price actions against it; back on the old model, it does again."""
    with LoopbackServer(reply(0, 41_800)) as server:
        app = app_for(anthropic(server))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "first")
            await finish(pilot)
            assert "cache expires in 5 min" in notes(app)
            runner = app.session.runner
            runner.switch_model(anthropic(server, "claude-haiku-4-5"))
            app.workbench.refresh_budget()
            await finish(pilot)
            panel = notes(app)
            assert "cache expires" not in panel and "before you act" not in panel
            runner.switch_model(anthropic(server))
            app.workbench.refresh_budget()
            await finish(pilot)
            assert "  /model: rewrites ~41,800 cached tokens ≈ $0.16" in notes(app)


async def test_an_unknown_price_is_said_not_shown_as_zero(app_for: AppFactory) -> None:
    with LoopbackServer(reply(0, 1_000)) as server:
        app = app_for(anthropic(server, "claude-opus-4-8"))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            # Counted with its generation's tokenizer (ctok), then calibrated by usage.
            assert "· Claude tokenizer count (ctok v4.8) · medium confidence" in notes(app)
            await send(pilot, "first")
            await finish(pilot)
            panel = notes(app)
            assert "cost: price unknown for claude-opus-4-8" in panel
            assert "$0 " not in panel
            assert "from 1 report over ctok v4.8 counts" in panel


async def test_a_free_models_cache_is_in_the_panel_without_costs(app_for: AppFactory) -> None:
    """A local server's model is free: the panel showed nothing of its cache (the lines went
    with the costs), though a miss there is where the latency goes."""
    with LoopbackServer(reply(0, 1_000), reply(1_000, 100)) as server:
        app = app_for(msgspec.structs.replace(anthropic(server), price=FREE, priced=True))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "first")
            await finish(pilot)
            await send(pilot, "second")
            await finish(pilot)
            panel = notes(app)
            assert "cache #2: " in panel
            assert "cache expires in " in panel
            assert "cost #" not in panel


def test_the_panel_after_an_idle_gap(snap_compare: SnapCompare, app_for: AppFactory) -> None:
    with LoopbackServer(reply(0, 41_800), reply(0, 42_700)) as server:
        # A model no other test calibrates: the estimator's calibration is the process's.
        app = app_for(anthropic(server, SNAPSHOT_MODEL))

        async def idle(pilot: Pilot[Any]) -> None:
            await pilot.pause()
            await send(pilot, "first")
            await finish(pilot)
            app.session.runner.clock.advance(timedelta(minutes=7))
            await send(pilot, "second")
            await finish(pilot)
            # The what-if view is not under test (its trial replays with the calibration of
            # the moment it ran, which a worker's timing decides): hidden from the snapshot.
            app.workbench.budget.query_one(WhatIfView).display = False
            app.workbench.budget.scroll_end(animate=False)
            await pilot.pause()

        assert snap_compare(app, terminal_size=(160, 48), run_before=idle)


async def test_masking_a_result_is_priced_before_it_is_taken(
    app_for: AppFactory, project: Path
) -> None:
    (project / "big.txt").write_text("a line of the big file\n" * 400, encoding="utf-8")
    call = [
        start(25, 0, 41_800),
        block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}),
        delta(0, {"type": "input_json_delta", "partial_json": '{"path": "big.txt"}'}),
        block_stop(0),
        *message_end("tool_use", 9),
    ]
    with LoopbackServer(Reply(parts=call), reply(41_800, 3_000)) as server:
        app = app_for(anthropic(server))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "read big.txt")
            await finish(pilot)
            panel = notes(app)
            line = next(x for x in panel.splitlines() if x.startswith("  m on "))
            assert "big.txt: rewrites ~" in line and "cached tokens ≈ $" in line
            # The status line says it too while the ranking (where m masks) has the focus.
            app.workbench.budget.query_one(CostRanking).focus()
            await pilot.pause()
            assert app.workbench.status.cache_hint == line.strip()


async def test_the_status_line_prices_an_action_before_it_is_taken(app_for: AppFactory) -> None:
    with LoopbackServer(reply(0, 41_800)) as server:
        app = app_for(anthropic(server))
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            screen = app.workbench
            screen.prompt.load_text("/model gpt-4o")
            await pilot.pause()
            assert screen.status.cache_hint == ""  # nothing is cached before the first request
            await send(pilot, "first")
            await finish(pilot)
            for typed, said_first in (
                ("/model gpt-4o", "/model: rewrites ~41,800 cached tokens ≈ $0.16"),
                # Written again on the model named, at its price ($1.25/M, not Sonnet's $3.75).
                (
                    "/model anthropic/claude-haiku-4-5",
                    "/model: rewrites ~41,800 cached tokens ≈ $0.05",
                ),
                ("/compact", "/compact: rewrites ~"),
                ("/skills review", "/skills: appends after the conversation: cache kept"),
                ("/whatif 90000 save", "/whatif save: appends after the conversation"),
                ("/model", ""),  # alone it only shows the model
                ("hello", ""),
            ):
                screen.prompt.load_text(typed)
                await pilot.pause()
                assert screen.status.cache_hint.startswith(said_first), typed
                assert not said_first or said_first in screen.status.render().plain
            screen.skills.focus()
            await pilot.pause()
            assert screen.status.cache_hint == (
                "skill toggle: appends after the conversation: cache kept"
            )
            screen.prompt.focus()
            await pilot.pause()
            assert screen.status.cache_hint == ""


async def test_a_model_typed_while_the_session_opens_is_no_crash(
    project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A launch opens the session after its first frame and what is typed meanwhile goes to
    the prompt: ``/model NAME`` typed then asked the controller, not there yet, for its price."""
    opened = WorkbenchSession.try_open

    def typed_first(hold: WorkbenchSession) -> Any:
        app.workbench.prompt.load_text("/model anthropic/claude-haiku-4-5")
        return opened(hold)

    monkeypatch.setattr(WorkbenchSession, "try_open", typed_first)
    app = make_app(request_for(project, config_dir), defer_open=True)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert app.session is not None and app.workbench.status.cache_hint == ""
        assert app.workbench.prompt.text == "/model anthropic/claude-haiku-4-5"
