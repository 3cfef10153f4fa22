"""The status line keeps what it says about the session on its one row at 80 columns.

It used to wrap: at 80 columns a second row (hidden, the line is one row high) took the
generation, the project and a pending reload, and while a reply streamed the compaction mode
too. Now the key hint goes first, then the project, then "Esc cancels" (the footer has Esc),
then the model's label is shortened.
"""

from __future__ import annotations

from textual.app import App, ComposeResult

from steiner_tui.app.widgets.status_line import StatusLine

MODEL = "offline · not a language model"


class StatusHost(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


def _row(app: StatusHost) -> str:
    return "".join(segment.text for segment in app.query_one(StatusLine).render_line(0))


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
