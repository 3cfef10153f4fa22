"""An imported Claude Code or Codex session, read-only: tokens per request and compactions.

The chart is the workbench's tokens-per-request chart (``RequestChart``): each request's context
(input, cache read and cache creation) on the scale of the model's window, with the window's
lines, every compaction marked, and the cache-read share of each request as the cache-reuse
strip (``importers.figures``); the table lists the requests with their cache-read share,
output, cost and cache cause, its border naming the costliest cache miss (``c`` goes to it);
``l`` opens the lineage browser on the session's generations (each compaction's trigger, tokens
before and the summary the agent wrote), ``v`` the conversation of the latest generation beside
the chart (``imported_conversation``). Everything shown was computed by the
importer. Opened by ``watch`` on a transcript the agent is still writing, the screen shows it
again each time complete lines are appended (``importers.follow``), and so does an open
conversation beside it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

import msgspec
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from watchfiles import awatch

from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.screens.readonly_figures import import_chart_view, import_window
from steiner_tui.app.widgets.context_charts import RequestChart
from steiner_tui.app.widgets.inspector_format import HEADER_ICON, clock
from steiner_tui.app.widgets.inspector_requests import cause_cell, cost_cell, costliest_miss
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.importers.figures import chart_rows, session_cost
from steiner_tui.importers.follow import TranscriptFollower
from steiner_tui.importers.lineage import lineage_of
from steiner_tui.importers.model import LineProblem
from steiner_tui.importers.transcript import read_generations
from steiner_tui.resources import styles_dir
from steiner_tui.units import count, counted

__all__ = ["ImportedScreen"]


_OWN_CALLS = {"compaction": "summarizer", "warmup": "warmup"}
"""What a call the agent made for itself is called (by its link's tool)."""
_PROBLEMS = 3
"""The line problems listed by their number (the rest are counted)."""


def compaction_label(generation: dict[str, Any]) -> str:
    """``▼ compaction (auto, 167,094 before)``."""
    trigger = generation.get("trigger") or "trigger not recorded"
    pre = generation.get("pre_tokens")
    before = f", {count(pre)} before" if isinstance(pre, int) else ""
    return f"▼ compaction ({trigger}{before})"


class ImportedScreen(Screen[None]):
    """One imported session."""

    CSS_PATH = styles_dir() / "imported.tcss"
    TITLE = "Imported session"
    AUTO_FOCUS = "#imported-requests"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "l",
            "lineage",
            "Lineage",
            id="imported.lineage",
            tooltip="Browse the compactions as generations",
        ),
        Binding(
            "v",
            "conversation",
            "Conversation",
            id="imported.conversation",
            tooltip="The latest generation's conversation beside the chart",
        ),
        Binding(
            "c",
            "costliest",
            "Costliest miss",
            id="imported.costliest",
            tooltip="Go to the request whose cache miss cost the most",
        ),
        Binding("escape,q", "close", "Back", id="imported.close", tooltip="Close"),
    ]
    """l opens the lineage browser, v the conversation, c goes to the costliest cache miss;
    Escape or q closes."""

    def __init__(
        self,
        session: dict[str, Any],
        *,
        follow: TranscriptFollower | None = None,
        prices: PriceOverrides = NO_OVERRIDES,
    ) -> None:
        super().__init__()
        self.session = session
        self.prices = prices
        """The config's prices by model id (before the table)."""
        self.follow = follow
        """The transcript followed as the agent writes it (``watch``), or None."""
        self._stop = asyncio.Event()
        self._lineage: LineageScreen | None = None
        """The lineage browser this screen opened (shown again on a followed compaction)."""
        self._compactions = 0
        """The compactions the lineage browser was last opened on."""
        self._costliest: int | None = None
        """The table row of the request whose cache miss cost the most (None: no miss)."""
        self._streaming = False
        """Whether the last request's reply is still being written (its row marked ``…``)."""
        self._rows: list[tuple[Text, ...]] = []
        """What the requests table shows, row by row."""

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield Static(id="imported-summary", markup=False)
        yield RequestChart(id="imported-chart")
        yield Static(id="imported-extra", markup=False)
        yield RowTable(id="imported-requests")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#imported-requests", DataTable)
        # The figures, cost and cache cause first: they are what fits 80 columns.
        table.add_columns("#", "context", "cache read", "output", "cost", "cache", "time", "model")
        self.show(self.session)
        self.on_resize()
        if self.follow is not None:
            self._follow_transcript(self.follow)

    def on_resize(self, _event: events.Resize | None = None) -> None:
        """On a short terminal (80x24) the screen scrolls: it opens on the requests, and a
        resize (which scrolls it back to its top) brings them and their cursor into view."""
        table = self.query_one("#imported-requests", DataTable)

        def into_view() -> None:
            table.scroll_visible(animate=False, top=False)
            table.move_cursor(row=table.cursor_row, animate=False)

        self.call_after_refresh(into_view)

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        """A followed session's summary, ranking or notes grew taller (a session followed
        from its first line: from nothing): at 80x24 the requests followed are brought back
        above the footer (Textual's anchor would leave their last row under it)."""
        if self.follow is None or new.height <= old.height:
            return
        for table in self.query("#imported-requests").results(DataTable):
            if table.row_count and table.cursor_row == table.row_count - 1:
                self.on_resize()

    def on_unmount(self) -> None:
        self._stop.set()

    def show(self, session: dict[str, Any]) -> None:
        """Show ``session`` (``ImportedSession.to_json()`` data): again each time a followed
        transcript grows, the table keeping its cursor."""
        self.session = session
        # A followed file replaced by another session's names that one. The title says it is
        # followed: at the end of the subtitle, it was cut off at 80 columns.
        self.title = "Following" if self.follow is not None else self.TITLE
        self.sub_title = f"{session.get('source', '')} {session.get('id', '')}"
        requests = session.get("requests") or []
        generations = session.get("generations") or []
        context = sum(r["context_tokens"] for r in requests)
        read = sum(r["cache_read_tokens"] for r in requests)
        share = f"{read / context:.0%}" if context else "-"
        window = import_window(session)
        rows = chart_rows(requests, generations, window.tokens, self.prices)
        priced = [row for row in rows if not row.compaction]
        self.query_one("#imported-summary", Static).update(
            Text(
                f"{session.get('path', '')}\n{counted(len(requests), 'request')} · input "
                f"tokens, all requests {count(context)}, {share} read from the cache · output "
                f"{count(sum(r['output_tokens'] for r in requests))} · "
                f"{counted(len(generations), 'compaction')} · "
                f"{counted(len(session.get('subagents') or []), 'sub-agent')}\n"
                f"{session_cost(priced)}"
            )
        )
        chart = self.query_one(RequestChart)
        chart.border_title = f"Context tokens per request ({len(requests)})"
        # Empty for a followed project's next session, which has no compaction yet.
        chart.border_subtitle = " · ".join(compaction_label(g) for g in generations)
        chart.view = import_chart_view(rows, window)
        self.query_one("#imported-extra", Static).update(Text(self._extra()))
        table = self.query_one("#imported-requests", DataTable)
        # Where 80x24 shows it: the screen opens on the table, the summary above it.
        table.border_title = f"Requests · {session_cost(priced).split(' · ')[0]}"
        cursor = table.cursor_row
        following = table.row_count == 0 or cursor >= table.row_count - 1
        marks = {int(g["after_request"]): g for g in generations}
        follow = self.follow
        settled = len(follow.settled(ended=follow.idle())) if follow else len(requests)
        self._streaming = settled < len(requests)
        costliest = costliest_miss(priced)
        self._costliest = None
        table.border_subtitle = (
            f"costliest miss #{costliest.index} {cause_cell(costliest)} · c" if costliest else None
        )
        cells: list[tuple[Text, ...]] = []
        day = ""
        for index, request in enumerate(requests):
            # The time of day, dated where the day changes: at 80 columns the column shows
            # eight characters, and "2026-12-06 01:" hid the minutes an idle miss is about.
            when = clock(str(request["time"]), date=True)
            if len(when) == 19 and when[:10] == day:
                when = when[11:]
            day = when[:10] if len(when) == 19 else day
            if index in marks:
                # In the last column: in the time column it widened that one to its length on
                # every row, and the model names were cut off at 110 columns.
                blank = [Text("") for _ in range(6)]
                cells.append((Text("▼"), *blank, Text(compaction_label(marks[index]))))
            share = f"{request['cache_read_share']:.0%}"
            row = priced[index] if index < len(priced) else None
            if row is not None and row is costliest:
                self._costliest = len(cells)
            streaming = " …" if index >= settled else ""  # its output (and cost) still grow
            cells.append(
                (
                    Text(str(index + 1), justify="right"),
                    Text(count(request["context_tokens"]), justify="right"),
                    Text(share, justify="right"),
                    Text(count(request["output_tokens"]) + streaming, justify="right"),
                    Text((cost_cell(row) if row is not None else "") + streaming, justify="right"),
                    Text(cause_cell(row) if row is not None else ""),
                    Text(when),
                    Text(str(request["model"])),
                )
            )
        self._fill(table, cells)
        if self.follow is not None and following and table.row_count:
            table.move_cursor(row=table.row_count - 1)
        elif table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        shown = self._lineage
        if shown is not None and self.app.screen is shown and len(generations) != self._compactions:
            self.action_lineage()  # a followed session's new compaction
        if self.follow is not None:
            from steiner_tui.app.screens.imported_conversation import ImportedConversation

            for screen in self.app.screen_stack:
                if isinstance(screen, ImportedConversation):
                    screen.follow(session)

    def _fill(self, table: DataTable[Text], rows: list[tuple[Text, ...]]) -> None:
        """Make ``table`` show ``rows``: a followed session's rows are changed in place and
        the new ones added (clearing it showed its first rows for a frame, wherever its view
        was); fewer rows than shown (another session) fill it again."""
        shown = self._rows
        if len(rows) < len(shown):
            table.clear()
            shown = []
        for number, (old, new) in enumerate(zip(shown, rows, strict=False)):
            for column, (before, after) in enumerate(zip(old, new, strict=True)):
                if before != after:
                    table.update_cell_at(Coordinate(number, column), after, update_width=True)
        for row in rows[len(shown) :]:
            table.add_row(*row)
        self._rows = rows

    @work(exclusive=True, group="imported-follow")
    async def _follow_transcript(self, follower: TranscriptFollower) -> None:
        """Show the transcript again each time complete lines are appended to it (watchfiles,
        as ``TranscriptFollower.watch_arguments`` says)."""
        failed = ""
        self._say_skipped(follower)  # those read before the screen opened
        async for _ in awatch(
            follower.path.parent, **follower.watch_arguments(), stop_event=self._stop
        ):
            newer = await asyncio.to_thread(follower.new_session)
            if newer is not None:
                follower.switch(newer)
                self.notify(f"a new session of this project: {newer.stem} · following it")
            try:
                session = await asyncio.to_thread(follower.poll)
            except (OSError, ValueError) as error:
                said, failed = failed, f"cannot read {follower.path}: {error}"
                if failed != said:  # once, not at every poll while the file is missing
                    self.notify(failed, severity="error")
                continue
            failed = ""
            self._say_skipped(follower)
            if session is not None:
                self.show(session.to_json())
            elif self._streaming and follower.idle():  # ended mid-reply: its last figures stand
                self.show(self.session)

    def _say_skipped(self, follower: TranscriptFollower) -> None:
        """A toast naming the unreadable lines read since the last (the first few, the rest
        counted; ``_extra`` lists them for good)."""
        said = follower.skipped_lines()
        if said:
            more = len(said) - _PROBLEMS
            rest = [f"and {counted(more, 'more line problem')}"] if more > 0 else []
            self.notify("\n".join([*said[:_PROBLEMS], *rest]), severity="warning")

    def _extra(self) -> str:
        """Sub-agents with the tool call that started them, and the costliest tool results."""
        lines: list[str] = []
        lines += list(self.session.get("warnings") or [])
        problems = [msgspec.convert(p, LineProblem) for p in self.session.get("problems") or []]
        lines += [problem.said() for problem in problems[:_PROBLEMS]]
        if len(problems) > _PROBLEMS:
            lines.append(counted(len(problems) - _PROBLEMS, "more line problem"))
        agents = [*(self.session.get("subagents") or []), *(self.session.get("own_calls") or [])]
        for agent in agents:
            link = agent.get("link") or {}
            context = sum(r["context_tokens"] for r in agent.get("requests") or [])
            kind = _OWN_CALLS.get(str(link.get("tool")), "sub-agent")
            requests = counted(len(agent.get("requests") or []), "request")
            lines.append(
                f"{kind} {agent.get('id')}: {requests}, "
                f"{count(context)} input tokens · started by {link.get('tool') or '?'} "
                f"{link.get('tool_use_id') or ''} {link.get('description') or ''}".rstrip()
            )
        ranking = self.session.get("ranking") or []
        if ranking:
            costs = " · ".join(
                f"{row['tool']} {(row['target'] or '-').splitlines()[0][-48:]} "
                f"{count(row['bytes'])} B"
                for row in ranking[:3]
            )
            lines.append(f"costs the most: {costs}")
        return "\n".join(lines) or "no sub-agents, no tool results"

    @work(exclusive=True, group="imported-lineage")
    async def action_lineage(self) -> None:
        """Open the lineage browser on the imported generations, each with its messages read
        from the transcript (off the UI thread), so what each summary dropped is checked."""
        self._compactions = len(self.session.get("generations") or [])
        path = Path(str(self.session.get("path", "")))
        source = str(self.session.get("source", ""))
        try:
            transcript = await asyncio.to_thread(read_generations, path, source)
        except OSError as error:
            self.notify(
                f"cannot read {path}: {error}; what the summaries dropped cannot be checked",
                severity="error",
            )
            return
        replaced = self._lineage is not None and self.app.screen is self._lineage
        self._lineage = LineageScreen(lineage_of(self.session, transcript))
        if replaced:  # a followed session's new compaction: the lineage in its place
            self.app.switch_screen(self._lineage)
        else:
            self.app.push_screen(self._lineage)

    def action_costliest(self) -> None:
        """Move the cursor to the request whose cache miss cost the most."""
        if self._costliest is None:
            self.notify("no cache miss in this session")
            return
        table = self.query_one("#imported-requests", DataTable)
        table.move_cursor(row=self._costliest, animate=False)
        table.focus()

    def action_conversation(self) -> None:
        """Open the latest generation's conversation beside the chart."""
        from steiner_tui.app.screens.imported_conversation import ImportedConversation

        following = self.follow is not None
        self.app.push_screen(ImportedConversation(self.session, self.prices, following=following))

    def action_close(self) -> None:
        """Close the screen (the app, when it is the only one)."""
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.exit()
