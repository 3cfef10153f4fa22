"""A capture in the workbench, read-only and live: the conversation beside the context panel.

The screen is the workbench's layout for an agent's requests: on the left the conversation of
the latest captured request (its messages, as the agent sent them), on the right the context
panel (``BudgetPanel``) for that request: the window, the request as a stacked bar by source
over the per-source table, what costs the most, and the tokens-per-request chart of the whole
capture with the agent's compactions marked and the cache-reuse strip. F2, or Enter on the
panel, opens the request inspector over the capture (``CaptureScreen``: detail, blocks,
messages, ``m`` to compare two requests). Nothing can be sent from here.

While the proxy records, the requests file grows: the screen checks its size once a second and
reloads when it changed (``capture_view.CaptureLog``), reading and decoding off the UI
thread. What could not be read of the capture (a damaged line, named by its number) is a
warning at the top of the conversation; a requests file that can no longer be read replaces
the panel's figures with the reason.

The conversation's entries are text: a user message's own words, badged with the instruction
files and reminders the agent put in it (shown in full in the panel's rows and the inspector);
a tool result as a tool block holding its output; a reply as a reply; a system or developer
message as a one-line notice with its size. Entries go through the conversation pane's own
widgets, which render text and Markdown, never Rich markup.
"""

from __future__ import annotations

import asyncio
from pathlib import Path, PurePath
from typing import ClassVar

import msgspec
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header

from steiner_tui.app.budget_view import BudgetView
from steiner_tui.app.screens.capture_view import CaptureLog, CaptureScreen, close_capture
from steiner_tui.app.screens.panel_layout import MIN_CONVERSATION
from steiner_tui.app.screens.readonly_figures import capture_budget_view, latest_main
from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.inspector_format import HEADER_ICON
from steiner_tui.capture.figures import source_name
from steiner_tui.capture.report import CapturedRequest, decode_all
from steiner_tui.capture.snapshots import to_snapshots
from steiner_tui.capture.store import read_capture
from steiner_tui.capture.wire import Block, DecodedRequest
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.resources import styles_dir
from steiner_tui.units import byte_count, counted

__all__ = ["CaptureWorkbench", "CaptureWorkbenchData", "load_workbench"]

NOTHING_CAPTURED = (
    "Nothing captured yet: the conversation of the latest request shows here once the agent "
    "sends one through the proxy."
)
"""What the conversation says before the first request (not the workbench's welcome: a
capture has no prompt)."""

_CALL_KINDS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_BADGES = {"instructions": "", "reminder": "reminder", "environment": "environment"}


class CaptureWorkbenchData(msgspec.Struct, frozen=True):
    """What the screen shows: the latest request's conversation and the panel's view."""

    requests: int
    position: int
    """The request shown (the latest that is not the agent's summary call; -1: none yet)."""
    entries: tuple[Entry, ...]
    view: BudgetView | None
    signature: tuple[str, ...]
    """The shown request's message hashes and the problems: the conversation is reloaded
    when they change."""
    problems: tuple[str, ...] = ()
    """What could not be read of the capture (``CaptureInfo.problems``)."""


def _badge(block: Block) -> str:
    if block.source == "instructions":
        return block.path.rsplit("/", 1)[-1] or "instructions"
    return _BADGES.get(block.source, block.source)


def _own_text(text: str, blocks: list[Block]) -> str:
    """The message's text without the blocks the agent put in it."""
    for block in blocks:
        text = text.replace(block.text, "", 1)
    return text.strip()


def capture_entries(decoded: DecodedRequest) -> list[Entry]:
    """The conversation entries of one captured request (module docstring)."""
    inside: dict[int, list[Block]] = {}
    whole: dict[int, Block] = {}
    for block in decoded.blocks:
        head, _, rest = block.where.partition("]")
        if not head.startswith(("messages[", "input[")):
            continue
        index = int(head.split("[", 1)[1])
        if rest:
            inside.setdefault(index, []).append(block)
        else:
            whole[index] = block
    entries: list[Entry] = []
    for index, message in enumerate(decoded.messages):
        if index in whole:
            block = whole[index]
            entries.append(NoticeEntry(f"{source_name(block.source)} · {byte_count(block.bytes)}"))
        elif message.tool_results:
            for result in message.tool_results:
                summary = f"{result.tool} {result.target.splitlines()[0] if result.target else ''}"
                output = message.text if len(message.tool_results) == 1 else ""
                entries.append(
                    ToolEntry(result.call_id, result.tool, summary.strip(), "done", output)
                )
        elif message.kind in _CALL_KINDS:
            continue  # its result's block names the tool and what it was about
        elif message.role == "user":
            blocks = inside.get(index, [])
            badges = tuple(_badge(b) for b in blocks)
            text = _own_text(message.text, blocks)
            if text or badges:
                entries.append(UserEntry(text, badges))
        elif message.role == "assistant":
            if message.said.strip():  # its tool calls show as their results' blocks
                entries.append(ReplyEntry(message.said))
        else:
            entries.append(
                NoticeEntry(f"{message.role} {message.kind} · {byte_count(message.bytes)}")
            )
    return entries


def _data(
    requests: list[CapturedRequest], problems: tuple[str, ...], prices: PriceOverrides
) -> CaptureWorkbenchData:
    warnings = tuple(NoticeEntry(f"capture: {problem}", "warning") for problem in problems)
    if not requests:
        return CaptureWorkbenchData(0, -1, warnings, None, problems, problems)
    snapshots = to_snapshots(requests)
    position = latest_main(requests)
    decoded = requests[position].decoded
    return CaptureWorkbenchData(
        len(requests),
        position,
        (*warnings, *capture_entries(decoded)),
        capture_budget_view(requests, snapshots, position, prices),
        (*problems, *(m.hash for m in decoded.messages)),
        problems,
    )


def load_workbench(
    base: Path, capture_id: str, prices: PriceOverrides = NO_OVERRIDES
) -> tuple[Path, CaptureWorkbenchData]:
    """The capture's folder and what the screen shows of it (reads and decodes it; priced
    with the config's ``prices`` for its model ids, else the table).

    Raises:
        ValueError: the id is not valid, or the requests file cannot be opened
            (``CaptureUnreadableError``).
        CaptureNotFoundError: there is no such capture.
    """
    info, recorded = read_capture(base, capture_id)
    return info.directory, _data(decode_all(recorded), info.problems, prices)


class CaptureWorkbench(Screen[None]):
    """A capture's conversation and context panel, following the capture while it grows."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        styles_dir() / "main.tcss",
        styles_dir() / "capture_workbench.tcss",
    ]
    TITLE = "Capture"
    AUTO_FOCUS = "#budget"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (MIN_CONVERSATION + 56, "-wide")]  # noqa: RUF012
    """Below a 60-column conversation beside the 56-column panel, the two are stacked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "open_inspector", "Inspector", id="capture.inspect",
                tooltip="Open the request inspector over the capture (m compares two)"),
        Binding("escape,q", "close", "Back", id="capture.close", tooltip="Close the capture"),
    ]  # fmt: skip
    """F2 opens the inspector; Escape or q closes."""

    def __init__(
        self,
        base: Path,
        capture_id: str,
        *,
        follow: bool = True,
        prices: PriceOverrides = NO_OVERRIDES,
    ) -> None:
        super().__init__()
        self.base = base
        self.capture_id = capture_id
        self.follow = follow
        self.prices = prices
        """The config's prices by model id (before the table)."""
        directory, self.data = load_workbench(base, capture_id, prices)
        self._log = CaptureLog(directory)
        self._signature: tuple[str, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield ConversationPane(id="conversation", empty=NOTHING_CAPTURED)
        yield BudgetPanel(whatif=False, id="budget")  # nothing to try: the agent compacts
        yield Footer()

    async def on_mount(self) -> None:
        # The workbench's F10 and /context do not exist here: say which keys do.
        self.query_one(BudgetPanel).border_subtitle = "Enter or F2: inspector"
        await self._show(self.data)
        if self.follow:
            self.set_interval(1.0, self.poll)

    def poll(self) -> None:
        """Reload when the requests file changed (called once a second while following)."""
        if self._log.changed():
            self._reload()

    @work(exclusive=True, group="capture-workbench-reload")
    async def _reload(self) -> None:
        try:
            _, data = await asyncio.to_thread(
                load_workbench, self.base, self.capture_id, self.prices
            )
        except (ValueError, LookupError) as error:  # the folder went away or cannot be read
            self.query_one(BudgetPanel).show_error(f"The capture cannot be read now: {error}")
            return
        await self._show(data)

    async def _show(self, data: CaptureWorkbenchData) -> None:
        self.data = data
        shown = f"request #{data.position + 1}" if data.position >= 0 else "no requests yet"
        self.sub_title = (
            f"{self.capture_id} · {counted(data.requests, 'request')} · {shown} · read-only"
        )
        panel = self.query_one(BudgetPanel)
        if data.view is not None:
            panel.show(data.view)
        else:
            panel.show_nothing(
                "nothing captured yet", "No request captured yet: point the agent at the proxy."
            )
        if data.signature != self._signature:
            self._signature = data.signature
            await self.query_one(ConversationPane).load(list(data.entries))

    @on(BudgetPanel.InspectRequested)
    def _inspect_requested(self, event: BudgetPanel.InspectRequested) -> None:
        event.stop()
        self.action_open_inspector()

    def action_open_inspector(self) -> None:
        """The request inspector over the capture, on its latest request."""
        self.app.push_screen(
            CaptureScreen(self.base, self.capture_id, follow=self.follow, prices=self.prices)
        )

    def action_close(self) -> None:
        close_capture(self)
