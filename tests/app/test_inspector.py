"""The request inspector: pick a request, read its blocks and messages, compare two."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.screens.message_view import MessageScreen
from steiner_tui.app.widgets.inspector_compare import (
    APPENDED,
    DIVERGENCE,
    KEPT,
    REMOVED,
    RequestCompare,
    compare_rows,
)
from steiner_tui.app.widgets.inspector_detail import (
    RequestDetail,
    message_sources,
    request_summary,
)
from steiner_tui.app.widgets.inspector_format import message_line, short_path
from steiner_tui.app.widgets.inspector_requests import MARK, PAGE, RequestTable
from steiner_tui.app.widgets.text_lines import TextLines
from steiner_tui.engine.events import RequestSnapshot, SourceTokens
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.prompt.blocks import ContextBlock, render_blocks
from steiner_tui.engine.skills.envelopes import render_skill_activation, render_skill_deactivation
from steiner_tui.engine.snapshots import SnapshotStore, build_request_snapshot
from steiner_tui.engine.tooldefs import ToolDefinition

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
TOOLS = (ToolDefinition("read", "Read a file.", {"type": "object", "properties": {}}),)


@dataclass(frozen=True)
class Estimate:
    tokens: int
    raw_tokens: int
    strategy: str = "tiktoken"
    confidence: str = "high"


def _blocks(agents: str) -> list[ContextBlock]:
    return [
        ContextBlock.of("preamble", "You are a careful coding assistant."),
        ContextBlock.of("project_agents_md", agents, path="AGENTS.md"),
        ContextBlock.of(
            "project_context", "# README\nA sample project." + " x" * 40, path="README.md",
            truncated=True,
        ),
        ContextBlock.of("session_date", "Today is 2026-03-01."),
    ]  # fmt: skip


def _snapshot(
    index: int, agents: str, conversation: Sequence[Message], *, compaction: bool = False
) -> RequestSnapshot:
    blocks = _blocks(agents)
    block_messages = render_blocks(blocks)
    messages = (*block_messages, *conversation)
    return build_request_snapshot(
        request_id=f"r{index}",
        index=index,
        model="offline/offline-echo",
        provider="offline",
        time=T0 + timedelta(seconds=7 * index),
        messages=messages,
        blocks=blocks,
        block_message_count=len(block_messages),
        tools=TOOLS,
        max_tokens=8192,
        estimate=Estimate(400 + 50 * index, 380 + 50 * index),
        compaction=compaction,
        generation_id="0",
    )


def sample_snapshots() -> tuple[RequestSnapshot, ...]:
    """Four requests: a turn, its follow-up, one after AGENTS.md changed, a compaction."""
    hello = [Message("user", "hello")]
    grown = [*hello, Message("assistant", "Hi! What shall we do?"), Message("user", "fix it")]
    return (
        _snapshot(0, "Use uv.", hello),
        _snapshot(1, "Use uv.", grown),
        _snapshot(2, "Use uv. Run ruff before committing.", grown),
        _snapshot(3, "Use uv.", [Message("user", "Summarize the conversation.")], compaction=True),
    )


class InspectorHost(App[None]):
    """A bare app that opens the request inspector on mount."""

    def __init__(self, snapshots: Sequence[RequestSnapshot], selected: int | None = None) -> None:
        super().__init__()
        self.snapshots = snapshots
        self.selected = selected

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.snapshots, self.selected))


def _rows(table: DataTable[Any]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_lists_requests_and_shows_the_latest_in_detail() -> None:
    snapshots = sample_snapshots()
    app = InspectorHost(snapshots)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        rows = _rows(screen.query_one(RequestTable))
        size = str(snapshots[0].prompt_bytes)
        assert rows[0] == [
            "", "0", "12:00:00", "offline/offline-echo", "turn", "400", "3", "—", "", "", size,
        ]  # fmt: skip
        assert rows[3][4] == "compaction"
        # No usage came: what the provider's cache read of them is not known.
        assert [row[7] for row in rows[1:]] == ["—", "—", "—"]
        assert screen.selected == 3 and not screen.comparing
        summary = str(screen.query_one("#request-summary", Static).content)
        assert "Request #3" in summary and "compaction request" in summary
        assert "Estimate 550 tokens (raw 530 · tokenizer count · high confidence)" in summary
        assert "max tokens 8,192" in summary and "tools 1 (" in summary


async def test_selected_request_shows_blocks_and_messages() -> None:
    snapshots = sample_snapshots()
    app = InspectorHost(snapshots, selected=1)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        assert screen.selected == 1
        detail = screen.query_one(RequestDetail)
        blocks = _rows(detail.query_one("#blocks", DataTable))
        assert [row[2] for row in blocks] == [
            "preamble", "project AGENTS.md", "project context", "session date"
        ]  # fmt: skip
        assert blocks[1][1:4] == ["system", "project AGENTS.md", "AGENTS.md"]
        assert blocks[2][5] == "cut" and blocks[0][5] == ""
        messages = _rows(detail.query_one("#messages", DataTable))
        assert len(messages) == len(snapshots[1].messages) == 5
        assert messages[0][2] == "preamble + project AGENTS.md"
        assert messages[4][1:3] == ["user", "conversation"]
        assert messages[4][4] == snapshots[1].message_hashes[4]
        assert messages[3][5] == "Hi! What shall we do?"
        await pilot.press("up")
        await pilot.pause()
        assert screen.selected == 0
        assert len(detail.query_one("#messages", DataTable).rows) == 3


def test_a_message_is_sourced_as_the_panel_counts_it() -> None:
    # The context panel counts tool messages apart, as tool results, and a summary (sent as a
    # system message) as the conversation summary: the inspector's table says the same of
    # them, not "conversation".
    snapshot = sample_snapshots()[1]
    call = ToolCall("c1", "read", {"path": "AGENTS.md"})
    turn = (
        Message("system", "Summary of the earlier conversation."),
        Message("assistant", tool_calls=(call,)),
        Message("tool", "1 line", tool_call_id="c1"),
    )
    snapshot = msgspec.structs.replace(
        snapshot,
        messages=(*snapshot.messages, *turn),
        message_hashes=(*snapshot.message_hashes, *(m.digest() for m in turn)),
    )
    sources = message_sources(snapshot)
    assert sources[-3:] == ("conversation_summary", "conversation", "tool_results")
    assert sources[0] == "preamble+project_agents_md"
    # A request whose own figures have no such row (a captured agent's, counted by bytes: its
    # system messages are the agent's own) keeps to the rows it has.
    captured = msgspec.structs.replace(
        snapshot,
        sources=(
            SourceTokens("conversation", 100, 25),
            SourceTokens("tool_results", 6, 2),
        ),
    )
    assert message_sources(captured)[-3:] == ("conversation", "conversation", "tool_results")


async def test_mark_then_select_compares_and_shows_the_first_divergence() -> None:
    app = InspectorHost(sample_snapshots(), selected=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await pilot.press("m")
        await pilot.pause()
        table = screen.query_one(RequestTable)
        assert str(table.get_row_at(0)[0]) == MARK
        await pilot.press("down")  # request 1 keeps request 0's whole prefix
        await pilot.pause()
        assert screen.comparing and screen.has_class("-comparing")
        compare = screen.query_one(RequestCompare)
        heading = str(compare.query_one("#compare-heading", Static).content)
        assert heading == (
            "Request #0 → #1: prefix stable, #1 repeats all 3 messages of #0 and appends 2"
        )
        await pilot.press("down")  # request 2: AGENTS.md changed in the first message
        await pilot.pause()
        heading = str(compare.query_one("#compare-heading", Static).content)
        assert heading == (
            "Request #0 → #2: 0 leading message(s) match · "
            "first divergence at message 0 (project AGENTS.md)"
        )
        rows = _rows(compare.query_one("#compare-table", DataTable))
        assert rows[0][0] == DIVERGENCE and rows[0][4] == "≠"
        assert [row[0] for row in rows[1:]] == ["", "", "", ""]
        assert [row[4] for row in rows] == ["≠", "=", "=", "+", "+"]  # changed, kept, appended
        assert rows[4][3] == "—"
        # Marking the request on show again clears the mark: back to the plain detail.
        await pilot.press("up", "up", "m")
        await pilot.pause()
        assert screen.marked is None and not screen.comparing
        assert str(table.get_row_at(0)[0]) == ""


async def test_empty_inspector_and_escape() -> None:
    app = InspectorHost(())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        assert "No request recorded yet" in str(
            screen.query_one("#request-summary", Static).content
        )
        await pilot.press("m", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, InspectorScreen)


def test_inspector_snapshot(snap_compare: Any) -> None:
    assert snap_compare(InspectorHost(sample_snapshots(), selected=1), terminal_size=(120, 36))


def test_inspector_compare_snapshot(snap_compare: Any) -> None:
    app = InspectorHost(sample_snapshots(), selected=1)
    assert snap_compare(app, press=["m", "down"], terminal_size=(120, 36))


def test_message_gist_names_skill_envelopes_and_paths_keep_their_tail() -> None:
    envelope = render_skill_activation("code-review", "Review every diff.")[0]
    message = Message("user", envelope + "\n\n" + render_skill_deactivation("x") + "\n\nGo on")
    assert message_line(message) == "⟨code-review on, x off⟩ Go on"
    call = ToolCall("c1", "bash", {"command": "uv run pytest -q\nsecond line"})
    assert message_line(Message("assistant", tool_calls=(call,))) == "→ bash uv run pytest -q"
    assert message_line(Message("assistant", "  \n first\nsecond"), width=4) == "fir…"
    assert short_path("/srv/projects/budgetkit/docs/AGENTS.md", 24) == "…/docs/AGENTS.md"
    assert short_path("docs/AGENTS.md") == "docs/AGENTS.md"


def _long_store(requests: int) -> SnapshotStore:
    store = SnapshotStore()
    conversation: list[Message] = []
    for index in range(1, requests + 1):
        conversation = [*conversation, Message("user", f"question {index}")]
        store.store(_snapshot(index, "Use uv.", conversation))
    return store


class StoreHost(App[None]):
    def __init__(self, store: SnapshotStore) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.store))


async def _rows_in(pilot: Pilot[None], table: RequestTable) -> None:
    """Wait for the rows the table adds a chunk per frame."""
    await pilot.pause()
    while table.pending is not None:
        await pilot.pause()


async def test_a_long_session_lists_a_page_and_rebuilds_only_what_it_shows(
    monkeypatch: Any,
) -> None:
    store = _long_store(PAGE + 50)
    rebuilt: list[int] = []
    at = store.at

    def counted(position: int) -> RequestSnapshot:
        rebuilt.append(position)
        return at(position)

    monkeypatch.setattr(store, "at", counted)
    monkeypatch.setattr(store, "all", lambda: pytest.fail("every request was rebuilt"))
    async with StoreHost(store).run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, InspectorScreen)
        table = screen.query_one(RequestTable)
        await _rows_in(pilot, table)
        assert table.row_count == PAGE + 1  # the page and the "earlier" row
        first = _rows(table)[0]
        assert "50 earlier requests" in first[3]  # the model column: the widest
        assert rebuilt == [PAGE + 49] and screen.selected == PAGE + 49
        table.move_cursor(row=0)
        await pilot.pause()
        await pilot.press("enter")
        await _rows_in(pilot, table)
        assert table.row_count == PAGE + 50 and table.start == 0  # all, from the first
        assert screen.selected == 49 and _rows(table)[49][1] == "50"


async def test_the_earlier_requests_row_leaves_the_figures_in_view_at_80_columns() -> None:
    """Its note in the Time column ("▲ 4,800 earlier requests · Enter shows them") made that
    column 45 wide: at 80 columns a resumed long session listed no token figure at all."""
    store = _long_store(PAGE + 50)
    async with StoreHost(store).run_test(size=(80, 24)) as pilot:
        table = pilot.app.screen.query_one(RequestTable)
        await _rows_in(pilot, table)
        assert "50 earlier requests" in _rows(table)[0][2]
        widths = {key.value: c.get_render_width(table) for key, c in table.columns.items()}
        upto = list(widths)[: list(widths).index("tokens") + 1]
        assert sum(widths[key] for key in upto) <= table.scrollable_content_region.width


async def test_the_first_lines_take_the_width_the_other_columns_leave() -> None:
    """A wide source ("project context + session date") pushed the first lines past the
    table's edge at 120 columns; resized from 80, they kept their 30 characters."""
    long = "word " * 80
    snapshots = (_snapshot(1, "Use uv.", [Message("user", long)]),)
    async with InspectorHost(snapshots).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        messages = pilot.app.screen.query_one("#messages", DataTable)
        for size in ((120, 36), (160, 48), (100, 30)):  # at 80 the other columns take 60
            await pilot.resize_terminal(*size)
            await pilot.pause()
            room = messages.scrollable_content_region.width
            used = sum(c.get_render_width(messages) for c in messages.columns.values())
            assert room - 4 <= used <= room, size


async def test_enter_opens_a_message_whole_as_text() -> None:
    long = "line one [bold]not markup[/bold] " + "word " * 80 + "\nline two\nline three"
    snapshots = (_snapshot(1, "Use uv.", [Message("user", long)]),)
    async with InspectorHost(snapshots).run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, InspectorScreen)
        messages = screen.query_one("#messages", DataTable)
        first_line = str(messages.get_row_at(messages.row_count - 1)[5])
        # the width the other columns leave (54 here: wider, it ran past the edge), not 50
        assert len(first_line) > 50
        messages.focus()
        messages.move_cursor(row=messages.row_count - 1)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        view = pilot.app.screen
        assert isinstance(view, MessageScreen)
        text = view.query_one("#message-text", TextLines).lines
        assert " ".join(text).split() == long.split()  # whole, markup shown as typed
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen


class MessageHost(App[None]):
    def __init__(self, message: Message) -> None:
        super().__init__()
        self.message = message

    def on_mount(self) -> None:
        self.push_screen(MessageScreen("message", self.message))


async def _message_view(message: Message) -> tuple[int, list[str]]:
    async with MessageHost(message).run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        return len(pilot.app.screen.query("*")), list(
            pilot.app.screen.query_one("#message-text", TextLines).lines
        )


async def test_a_long_message_is_drawn_a_screen_at_a_time() -> None:
    """A message was one ``Static`` laid out whole on the UI thread, however long; its
    lines are drawn only where they show now."""
    few, short = await _message_view(Message("tool", "one line", tool_call_id="c1"))
    lines = "\n".join(f"line {n}: " + "x" * (n % 300) for n in range(20_000))
    many, long = await _message_view(Message("tool", lines, tool_call_id="c2"))
    assert few == many and short == ["(result of c1)", "", "one line"]
    assert long[2] == "line 0: " and len(long) > 20_000


def test_appended_messages_are_not_marked_changed() -> None:
    a = _snapshot(1, "Use uv.", [Message("user", "hello")])
    b = _snapshot(2, "Use uv.", [Message("user", "hello"), Message("assistant", "hi")])
    rows = compare_rows(a, b)
    assert [row[4] for row in rows] == [KEPT] * (len(a.messages)) + [APPENDED]
    assert [row[4] for row in compare_rows(b, a)][-1] == REMOVED


@pytest.mark.parametrize(
    "size", [(80, 24), (100, 30), (160, 48), (220, 60)], ids=lambda s: f"{s[0]}x{s[1]}"
)
def test_inspector_snapshot_at_each_size(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(InspectorHost(sample_snapshots(), selected=2), terminal_size=size)


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (100, 30), (120, 36)])
async def test_a_short_terminal_still_shows_the_messages(size: tuple[int, int]) -> None:
    """With a dozen requests listed and four blocks, the messages keep rows of their own: on a
    short terminal the request list and the blocks take a share of the height, not their
    tallest (which left the messages their border alone at 80x24); below 25 rows the blocks
    are left out."""
    hello = [Message("user", "hello"), Message("assistant", "Hi!"), Message("user", "go on")]
    snapshots = tuple(_snapshot(index, "Use uv.", hello) for index in range(12))
    async with InspectorHost(snapshots).run_test(size=size) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, InspectorScreen)
        messages = screen.query_one("#messages", DataTable)
        blocks = screen.query_one("#blocks", DataTable)
        assert messages.size.height >= 4  # the header and three messages at least
        assert blocks.size.height >= 3 or (size[1] < 25 and not blocks.display)
        assert screen.query_one(RequestTable).size.height >= (3 if size[1] < 22 else 4)


async def test_at_80x24_the_messages_get_the_rows() -> None:
    """The list, the figures and the blocks left the messages two rows at 80x24 (fewer with
    more blocks): below 25 rows the blocks give theirs to the messages."""
    hello = [Message("user", f"line {n}") for n in range(12)]
    snapshots = tuple(_snapshot(index, "Use uv.", hello) for index in range(12))
    async with InspectorHost(snapshots).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        messages = pilot.app.screen.query_one("#messages", DataTable)
        assert messages.scrollable_content_region.height - 1 >= 5  # rows under the header
        assert pilot.app.screen.query_one(RequestTable).scrollable_content_region.height >= 3


async def test_at_80x24_several_requests_show_beside_the_messages() -> None:
    """Given the blocks' rows, the messages kept eight at 80x24 and the request list two or
    three: a user stepping through requests saw too few to choose from. Both show five."""
    hello = [Message("user", f"line {n}") for n in range(12)]
    snapshots = tuple(_snapshot(index, "Use uv.", hello) for index in range(12))
    async with InspectorHost(snapshots).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        for table in (screen.query_one(RequestTable), screen.query_one("#messages", DataTable)):
            rows = table.scrollable_content_region.height - table.header_height
            assert rows >= 5, table.id


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_requests_and_messages_fit_the_width(size: tuple[int, int]) -> None:
    """Both tables scrolled sideways at 80 columns (the list by 28 cells): the columns least
    needed give way there, and every column is back at 120."""
    merged = [Message("user", "hello " * 30), Message("assistant", "Hi!")]
    snapshots = (*sample_snapshots(), _snapshot(4, "Use uv.", merged, compaction=True))
    async with InspectorHost(snapshots).run_test(size=size) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        requests = screen.query_one(RequestTable)
        await _rows_in(pilot, requests)
        messages = screen.query_one("#messages", DataTable)
        for table in (requests, messages):
            assert table.max_scroll_x == 0, (size, type(table).__name__)
        assert {"index", "model", "kind", "tokens", "reuse", "cause", "cost"} <= set(
            str(key.value) for key in requests.columns
        )
        assert {"#", "Role", "Source", "First line"} <= {
            str(c.label) for c in messages.columns.values()
        }
        if size[0] >= 120:
            assert len(requests.columns) == 11 and len(messages.columns) == 6
        first_line = str(messages.get_row_at(messages.row_count - 2)[-1])
        assert first_line.startswith("hello hello") and first_line.endswith("…")


def test_a_request_without_max_tokens_says_so_not_zero() -> None:
    """A Codex request names no ``max_output_tokens``: its capture said "max tokens 0"."""
    snapshot = msgspec.structs.replace(sample_snapshots()[0], max_tokens=0)
    assert request_summary(snapshot).endswith("· max tokens not set")
