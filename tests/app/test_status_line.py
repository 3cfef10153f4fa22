"""The status line keeps what it says about the session on its one row at 80 columns.

It used to wrap: at 80 columns a second row (hidden, the line is one row high) took the
generation, the project and a pending reload, and while a reply streamed the compaction mode
too. Now the key hint goes first, then the project, then "Esc cancels" (the footer has Esc),
then the model's label is shortened.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from textual.app import App, ComposeResult

from steiner_tui.app.budget_view import WindowFigures
from steiner_tui.app.widgets.status_line import StatusLine
from steiner_tui.engine.provider import ProviderEvent, StreamReasoning, StreamToolInput
from steiner_tui.units import run_time
from tests.app.conftest import AppFactory
from tests.app.fakes import BashProvider, GateProvider, fake_model
from tests.app.helpers import finish, send

MODEL = "offline · not a language model"


class StatusHost(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


def _row(app: StatusHost) -> str:
    return _row_of(app.query_one(StatusLine))


async def _shown(width: int, **state: object) -> str:
    app = StatusHost()
    async with app.run_test(size=(width, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.model, status.project = MODEL, "budgetkit"
        for name, value in state.items():
            setattr(status, name, value)
        await pilot.pause()
        return _row(app)


async def test_wide_shows_everything() -> None:
    row = await _shown(160, generation=2)
    for part in ("BUILD", "⇧Tab", MODEL, "idle", "compaction auto", "generation 2", "budgetkit"):
        assert part in row


async def test_at_80_columns_the_session_state_stays_on_the_row() -> None:
    row = await _shown(80, generation=1, compaction="ask")
    assert "compaction ask" in row and "generation 1" in row and "idle" in row
    row = await _shown(80, busy=True, generation=3)
    assert "● generating" in row  # "Esc cancels" is in the footer too
    assert "compaction auto" in row and "generation 3" in row
    row = await _shown(80, busy=True, pending_reload="2 files · +310 tok")
    assert "● generating" in row and "compaction auto" in row and "⟳ 2 files · +310 tok" in row


async def test_at_80_columns_a_cache_hint_keeps_its_dollars() -> None:
    """``/model: rewrites ~2,845 cached tokens ≈ $0.01`` was cut before its dollars at 80
    columns: while a hint is shown, the default compaction mode ("compaction auto") gives way
    first; a mode the user set stays."""
    hint = "/model: rewrites ~2,845 cached tokens ≈ $0.01"
    row = await _shown(80, cache_hint=hint)
    assert hint in row and "idle" in row and "compaction" not in row
    row = await _shown(80, cache_hint="/compact: rewrites ~1,200 cached tokens ≈ $0.01")
    assert "≈ $0.01" in row
    row = await _shown(80, cache_hint=hint, compaction="ask")
    assert "compaction ask" in row
    assert "compaction auto" in await _shown(80)


async def test_the_share_of_the_window_is_said_where_the_panel_is_hidden(
    app_for: AppFactory,
) -> None:
    """Below 100 columns the context panel is hidden, and nothing on screen said how full the
    window was (Codex's status line says "97% context left"). The row says the share of the
    request the panel shows; it turns to a warning at the soft threshold, an error over the
    hard limit, and stays at 80 columns."""
    window = WindowFigures(32_768, 2_949, 4_096, 22_938, 32_441)
    assert "idle │ 9% context │ compaction auto" in await _shown(160, window=window)
    busy = await _shown(80, window=window, busy=True, generation=3)
    assert "● generating │ 9% context │ compaction auto │ generation 3" in busy
    app = StatusHost()
    async with app.run_test(size=(120, 3)) as pilot:
        status = app.query_one(StatusLine)
        for used, share, style in (
            (2_949, "9% context", ""),
            (23_000, "70% context", "$text-warning"),
            (32_600, "99% context", "$text-error"),  # over the hard limit
            (5_140_532, "context over the window", "$text-error"),  # not "15688% context"
        ):
            status.window = msgspec.structs.replace(window, used=used)
            await pilot.pause()
            row = status.render()
            at = row.plain.index(share)
            styles = [str(span.style) for span in row.spans if span.start <= at < span.end]
            assert styles == ([style] if style else [])
        status.window = msgspec.structs.replace(window, guessed=True)
        await pilot.pause()
        assert "idle │ 9% of a guessed window │" in status.render().plain
        status.window = msgspec.structs.replace(window, guessed=True, used=40_000)
        await pilot.pause()
        assert "idle │ context over the guessed window │" in status.render().plain
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await finish(pilot)
        assert app.workbench.status.window is not None  # the dry run's, before anything is sent
        assert "% context" in _row_of(app.workbench.status)


async def test_a_run_counts_its_seconds_and_stops_counting_when_it_ends() -> None:
    """A reply whose server stopped sending said "● generating" unchanged until the timeout
    (600 s by default): the row now counts the run's seconds, as Claude Code's spinner does."""
    now = [100.0]
    app = StatusHost()
    async with app.run_test(size=(120, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.clock = lambda: now[0]
        status.model = MODEL
        status.busy = True
        await pilot.pause()
        assert "● generating · Esc cancels" in _row(app)  # nothing before the first second
        now[0] += 65.4
        for _ in range(50):  # the row's one-second tick
            await pilot.pause(0.1)
            if status.elapsed:
                break
        await pilot.pause()
        assert "● generating 1:05 · Esc cancels" in _row(app)
        status.compacting = "normal"
        await pilot.pause()
        assert "● compacting (normal) 1:05 · Esc abandons" in _row(app)
        status.busy, status.compacting = False, ""
        await pilot.pause()
        assert "idle" in _row(app) and "1:05" not in _row(app)
        status.busy = True  # the next run counts from zero
        await pilot.pause()
        assert "● generating · Esc cancels" in _row(app)


def test_run_time() -> None:
    assert [run_time(s) for s in (1, 59, 60, 65, 3599, 3600, 3725)] == [
        "1s", "59s", "1:00", "1:05", "59:59", "1:00:00", "1:02:05",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("leading", "said"),
    [
        ((StreamReasoning("Let me think about it."),), "· thinking · Esc cancels"),
        (
            (StreamToolInput("write", 5), StreamToolInput("write", 12_345)),
            "write call, 12,345 chars",
        ),
    ],
    ids=["reasoning", "a tool call being written"],
)
async def test_what_streams_unseen_is_said_until_the_call_is_over(
    app_for: AppFactory, leading: tuple[ProviderEvent, ...], said: str
) -> None:
    """Reasoning is not shown in the conversation and a tool call only once whole: a model
    thinking or writing a whole file for a minute showed nothing but "generating"."""
    provider = GateProvider(chunks=(), leading=leading)
    app = app_for(fake_model(provider))
    async with app.run_test(size=(120, 30)) as pilot:
        await finish(pilot)
        await send(pilot, "hello")
        await provider.reached.wait()
        await pilot.pause()
        status = app.workbench.status
        assert said in _row_of(status)
        provider.release.set()
        await finish(pilot)
        assert status.streaming == "" and "idle" in _row_of(status)


def _row_of(status: StatusLine) -> str:
    return "".join(segment.text for segment in status.render_line(0))


async def test_a_running_tool_is_named_until_its_result_is_stored(
    app_for: AppFactory, project: Path
) -> None:
    """While bash runs the row says so, not only "generating"; its result ends the note."""
    provider = BashProvider(command="while [ ! -f go ]; do sleep 0.02; done")
    app = app_for(fake_model(provider), config={"permissions": {"bash": "allow"}})
    async with app.run_test(size=(120, 30)) as pilot:
        await finish(pilot)
        await send(pilot, "build")
        status = app.workbench.status
        for _ in range(300):
            await pilot.pause(0.02)
            if status.streaming:
                break
        assert "bash running" in _row_of(status)
        (project / "go").touch()
        await finish(pilot)
        assert status.streaming == "" and "idle" in _row_of(status)
