"""A scroll of many entries: every entry kept as data, widgets for a run of at most ``window``.

A resumed session can hold thousands of messages, and a widget for each would make every layout
and every frame slower. ``EntryWindow`` keeps all entries (``entries``) and mounts widgets for
one contiguous run of them (``shown``), by a single policy. The run is counted in ``weight``,
not in entries: a reply weighs one more for each KB of its text, since a ``Markdown`` takes
about 1.7 MB of widgets a KB in Textual 8 (a stock ``Markdown`` as much), and forty replies of
10 KB held 700 MB:

- Following the bottom, the run is the newest entries: a page of them after ``load`` (a resumed
  session's screen waits for no more), growing to ``window`` as entries arrive. New entries
  are mounted at the end and, past ``window``, the oldest removed (never those that fill the
  view); Textual's anchor keeps the view at the bottom.
- Inside the run the keys scroll as in any ``VerticalScroll``.
- Up, PgUp or the wheel at the top of the run (or a click on the "earlier" row) moves the run
  back: it becomes the entries that end with the one at the top, and the view shows its
  bottom, so that entry is now at the bottom of the screen. Down, PgDn or the wheel at the
  bottom does the same forwards: the run starts with the entry at the bottom, shown at the top.
  A move brings in a page of entries (``page``: as many as fill the view even if each were a
  single line), not a whole window: mounting is what a move costs (a ``Markdown`` is a dozen
  widgets), so a page costs less than the window would and the next move comes a page later.
- Home goes to the top of the run, and from there to the first page of messages; End goes to
  the newest (the last page, when reading back). Some entries (``brings_newest``: in the
  conversation, a message from the user and a question) also bring the newest back.

New output follows the bottom while the view is there. Once the person has moved away (PgUp,
the wheel, Tab onto a tool block, reading back), output arrives without moving the view and a
"new messages below" marker, fixed at the bottom of the window, counts it; End or a click on it
jumps to the end, and reaching the bottom clears it.

Each move of the run is one batch update: the widgets removed and mounted and the new scroll
position show in the same frame (the view is placed at the top, or anchored at the bottom, both
of which Textual's layout does itself). Updates to an entry that has no widget (a finished tool
call, streamed text) change the entry and show when it is mounted again.

The subclass says what widget shows an entry (``make_widget``), which entries bring the newest
back and what a widget leaving takes with it (``removing``); it binds the keys (their ids and
tooltips name what it shows) to the actions here.
"""

from __future__ import annotations

import asyncio

from textual import events, on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.app.transcript import Entry, ReplyEntry
from steiner_tui.app.widgets.hidden_row import HiddenRow
from steiner_tui.app.widgets.new_below import NewBelowMarker

__all__ = ["EntryWindow", "weight"]

KB_OF_REPLY = 1024
"""The text of a reply that weighs as much as an entry of a few lines (``weight``)."""
AT_LEAST = 3
"""The entries a page holds whatever they weigh (a message, its reply and a notice)."""


def weight(entry: Entry) -> int:
    """What showing ``entry`` costs, in entries of a few lines: a reply one more for each KB
    of its text (its ``Markdown``'s widgets: 17.6 MB for a reply of 10 KB of headings, prose,
    lists, fences and tables, against 16.5 MB for a stock ``Markdown``)."""
    return 1 + len(entry.text) // KB_OF_REPLY if isinstance(entry, ReplyEntry) else 1


class EntryWindow(VerticalScroll):
    """Entries as data, widgets for a run of them; ``EMPTY`` shows while there is none."""

    EMPTY = ""
    """The text shown while there is no entry (``#welcome``)."""

    def __init__(
        self, *, window: int = 40, id: str | None = None, empty: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.empty = self.EMPTY if empty is None else empty
        """What shows while there is no entry at first (``EMPTY`` unless given)."""
        self.window = window
        """How much the entries that have widgets weigh at most (``weight``: as many entries
        of a few lines)."""
        self.entries: list[Entry] = []
        """Every entry, oldest first."""
        self.shown = range(0)
        """The indices in ``entries`` of the entries that have widgets."""
        self._widgets: dict[int, Widget] = {}
        """The widget of each shown entry, by ``id`` of the entry."""
        self._moving = asyncio.Lock()
        """Held while the run changes: one change at a time."""
        self.unseen = 0
        """Entries that arrived below the view since the person moved away from the bottom."""
        self.away = False
        """The person moved the view off the bottom (new output no longer follows it)."""

    def compose(self) -> ComposeResult:
        yield HiddenRow("earlier")
        yield Static(self.empty, id="welcome", markup=False)
        yield HiddenRow("later")
        yield NewBelowMarker(id="new-below")

    def on_mount(self) -> None:
        """Show ``EMPTY`` (at the top: the window follows the bottom once it has entries)."""
        self._show_counts()

    def make_widget(self, entry: Entry) -> Widget:
        """The widget that shows ``entry``."""
        raise NotImplementedError

    def brings_newest(self, entry: Entry) -> bool:
        """Whether ``entry``, added, brings the newest entries back (and the view to the end)."""
        return False

    async def removing(self, widgets: list[Widget]) -> None:
        """``widgets`` are about to be removed."""

    # -- what is shown ------------------------------------------------------------------------

    @property
    def showing_latest(self) -> bool:
        """Whether the newest entry has a widget (not reading back in history)."""
        return self.shown.stop == len(self.entries)

    def widget_of(self, entry: Entry) -> Widget | None:
        """The widget of ``entry``, if it is shown."""
        return self._widgets.get(id(entry))

    def _show_counts(self) -> None:
        self.query_one("#earlier", HiddenRow).show_count(self.shown.start)
        self.query_one("#later", HiddenRow).show_count(len(self.entries) - self.shown.stop)
        self.query_one("#welcome").display = not self.entries

    def _mark_unseen(self) -> None:
        """One more entry arrived below the view."""
        self.unseen += 1
        self.query_one(NewBelowMarker).show_count(self.unseen)

    def _mark_seen(self) -> None:
        self.away = False
        if self.unseen:
            self.unseen = 0
            self.query_one(NewBelowMarker).show_count(0)

    def release_anchor(self) -> None:
        """The view moved off the bottom (a key, the wheel, the scrollbar, a focused block)."""
        super().release_anchor()
        self.away = True

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Back at the end, the view follows new output again and the marker goes."""
        super().watch_scroll_y(old_value, new_value)
        if self.away and self.showing_latest and new_value >= self.max_scroll_y:
            self.away = False
            self._mark_seen()

    async def _show(self, shown: range, *, at_bottom: bool) -> None:
        """Show the entries in ``shown`` (keeping the widgets of those already shown), with the
        view at the bottom of them or at the top, painted as one frame."""
        keep = range(max(shown.start, self.shown.start), min(shown.stop, self.shown.stop))
        with self.app.batch_update():
            await self._remove([i for i in self.shown if i not in keep])
            if keep:
                kept = self.widget_of(self.entries[keep.start])
                before = [self._make(i) for i in range(shown.start, keep.start)]
                if before:
                    await self.mount_all(before, before=kept)
            after = [self._make(i) for i in range(keep.stop if keep else shown.start, shown.stop)]
            if after:
                await self.mount_all(after, before=self.query_one("#later", HiddenRow))
            self.shown = shown
            self._show_counts()
            if at_bottom:
                self.anchor()  # Textual's layout keeps the view at the bottom from now on
                if self.showing_latest:
                    self._mark_seen()
            else:
                self.scroll_home(animate=False, immediate=True)

    def _make(self, index: int) -> Widget:
        entry = self.entries[index]
        widget = self._widgets[id(entry)] = self.make_widget(entry)
        return widget

    def entry_of(self, widget: Widget | None) -> Entry | None:
        """The entry ``widget`` shows (None: not an entry's widget)."""
        if widget is None:
            return None
        return next(
            (e for i in self.shown if self._widgets.get(id(e := self.entries[i])) is widget), None
        )

    async def _remove(self, indices: list[int]) -> None:
        widgets = [w for i in indices if (w := self._widgets.pop(id(self.entries[i]), None))]
        await self.removing(widgets)
        if widgets:
            await self.remove_children(widgets)

    async def load(self, entries: list[Entry]) -> None:
        """Replace the entries with ``entries`` (the newest ``page`` are shown)."""
        async with self._moving:
            await self._remove(list(self.shown))
            self.entries = list(entries)
            self.unseen = 0
            self.shown = range(len(self.entries), len(self.entries))
            await self._show(self._page_ending(len(self.entries)), at_bottom=True)

    async def add(self, entry: Entry) -> Widget | None:
        """Append ``entry`` and show it (None: kept as data while reading back).

        An entry that ``brings_newest`` brings the newest entries back (and the view to the
        end); other entries follow the bottom only while the view is there, else the "new
        messages below" marker counts them.
        """
        wanted = self.brings_newest(entry)
        async with self._moving:
            latest = self.showing_latest
            self.entries.append(entry)
            end = len(self.entries)
            if not latest:
                if wanted:
                    await self._show(self._page_ending(end), at_bottom=True)
                    return self.widget_of(entry)
                self._show_counts()
                self._mark_unseen()
                return None
            following = not self.away
            widget = self._make(end - 1)
            await self.mount(widget, before=self.query_one("#later", HiddenRow))
            if wanted and not following:
                self.anchor()
                self.scroll_end(animate=False, immediate=True)  # the view comes back down
                self._mark_seen()
                following = True
            elif not following:
                self._mark_unseen()
            if following and not self.is_anchored:
                self.anchor()  # the first entry: follow the bottom from now on
            start = self.shown.start
            # Reading up inside the newest entries, the oldest stay until the run is twice as long:
            # removing them would move what is on screen.
            first = self._kept_from(start, end) if following else start
            if not following and end - start > 2 * self.window:
                first = end - self.window
            if first > start:
                await self._remove(list(range(start, first)))
                start = first
            self.shown = range(start, end)
            self._show_counts()
            return widget

    # -- moving the run -------------------------------------------------------------------------

    def _kept_from(self, start: int, end: int) -> int:
        """The first of the shown entries ``start``..``end`` (the newest, followed at the
        bottom) to keep: those that fill the view, and before them as many as keep the run's
        ``weight`` within ``window``."""
        view, rows, weighed, first = self.scrollable_content_region.height, 0, 0, end
        while first > start:
            entry = self.entries[first - 1]
            weighed += weight(entry)
            if rows >= view and weighed > self.window:
                break
            widget = self.widget_of(entry)
            rows += widget.outer_size.height if widget is not None else 0
            first -= 1
        return first

    def _page_ending(self, end: int) -> range:
        """A page of entries ending before ``end`` (``_page_size``)."""
        return range(end - self._page_size(range(end - 1, -1, -1)), end)

    def _page_from(self, start: int) -> range:
        """A page of entries from ``start`` on (``_page_size``)."""
        return range(start, start + self._page_size(range(start, len(self.entries))))

    def _page_size(self, indices: range) -> int:
        """How many of the entries at ``indices``, taken in that order, make a page: at most
        ``page``, at least ``AT_LEAST``, within ``window`` by ``weight`` beyond those."""
        taken = weighed = 0
        for index in indices:
            weighed += weight(self.entries[index])
            if taken == self.page or (taken >= AT_LEAST and weighed > self.window):
                break
            taken += 1
        return taken

    @property
    def page(self) -> int:
        """How many entries a move shows: enough to fill the view if each were one line (two
        rows with the gap above it), at most ``window`` (all of it before the first layout)."""
        height = self.scrollable_content_region.height or 2 * self.window
        return max(1, min(self.window, height // 2 + 1))

    async def show_earlier(self) -> None:
        """Show a page of entries before the run, ending with the one at the top of the view."""
        async with self._moving:
            if not self.shown.start:
                return
            top = self.shown.start
            # A first entry taller than the view stays out: its bottom would show, not its top.
            if self._taller_than_view(self.entries[top]):
                top -= 1
            await self._show(self._page_ending(top + 1), at_bottom=True)

    async def show_later(self) -> None:
        """Show a page of entries after the run, starting with the one at the bottom of the
        view."""
        async with self._moving:
            if self.showing_latest:
                return
            bottom = self.shown.stop - 1
            if self._taller_than_view(self.entries[bottom]):
                bottom += 1
            await self._show(self._page_from(bottom), at_bottom=False)

    def _taller_than_view(self, entry: Entry) -> bool:
        widget = self.widget_of(entry)
        height = self.scrollable_content_region.height
        return widget is not None and widget.outer_size.height > height

    async def show_first(self) -> None:
        """Show the first page of entries, from the top."""
        async with self._moving:
            await self._show(self._page_from(0), at_bottom=False)

    async def show_newest(self) -> None:
        """Show the newest entries, at the bottom (following it from now on): the last page
        when reading back, the run grows to ``window`` as entries arrive."""
        async with self._moving:
            await self._show(self._page_ending(len(self.entries)), at_bottom=True)

    async def bring_back(self) -> None:
        """Show the newest entries when the view is away from them: what the person typed is
        answered below them (``show_newest``)."""
        if self.away or not self.showing_latest:
            await self.show_newest()

    # -- keys -----------------------------------------------------------------------------------

    # Where the view is going, not where an animated scroll has got to: a second Home while
    # the first still scrolls means the first messages. Entries shorter than the view are at
    # both ends (anchored, Textual shows them at the bottom: the scroll position is negative).
    @property
    def _at_top(self) -> bool:
        return self.scroll_target_y <= 0

    @property
    def _at_bottom(self) -> bool:
        return self.max_scroll_y == 0 or self.scroll_target_y >= self.max_scroll_y

    async def action_line_up(self) -> None:
        """Up a line; at the top, the entries before."""
        if self._at_top and self.shown.start:
            await self.show_earlier()
        else:
            self.action_scroll_up()

    async def action_line_down(self) -> None:
        """Down a line; at the bottom, the entries after."""
        if self._at_bottom and not self.showing_latest:
            await self.show_later()
        else:
            self.action_scroll_down()

    async def action_page_up_or_earlier(self) -> None:
        """Up a page; at the top, the entries before."""
        if self._at_top and self.shown.start:
            await self.show_earlier()
        else:
            self.action_page_up()

    async def action_page_down_or_later(self) -> None:
        """Down a page; at the bottom, the entries after."""
        if self._at_bottom and not self.showing_latest:
            await self.show_later()
        else:
            self.action_page_down()

    async def action_home_or_first(self) -> None:
        """To the top of the run; at the top, the first entries."""
        if self._at_top and self.shown.start:
            await self.show_first()
        else:
            self.action_scroll_home()

    async def action_end_or_newest(self) -> None:
        """To the bottom, and the newest entries."""
        if self.showing_latest:
            self.scroll_end(animate=False)
            self._mark_seen()
        else:
            await self.show_newest()

    async def scroll_from_prompt(self, key: str) -> None:
        """PgUp / PgDn / Home / End pressed in the prompt: scroll (or move the run) here."""
        actions = {
            "pageup": self.action_page_up_or_earlier,
            "pagedown": self.action_page_down_or_later,
            "home": self.action_home_or_first,
            "end": self.action_end_or_newest,
        }
        await actions[key]()

    async def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        """The wheel at the top shows the entries before."""
        if self._at_top and self.shown.start:
            event.stop()
            await self.show_earlier()

    async def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        """The wheel at the bottom shows the entries after."""
        if self._at_bottom and not self.showing_latest:
            event.stop()
            await self.show_later()

    @on(HiddenRow.Clicked, "#earlier")
    async def _earlier_requested(self) -> None:
        await self.show_earlier()

    @on(HiddenRow.Clicked, "#later")
    @on(NewBelowMarker.JumpRequested)
    async def _newest_requested(self) -> None:
        await self.action_end_or_newest()
