"""A scrolling list that keeps every entry as data and mounts widgets for a window of them.

A session can reach thousands of messages; mounting a widget for each would make every layout
pass slower. ``EntryWindow`` mounts widgets for a contiguous run ``[_first, _last)`` of its
entries: the last ``window`` while the view follows the bottom. Home or PgUp at the top (or a
click on the earlier row) mounts an earlier batch; past ``window + 2 * load_batch`` mounted
entries the newest are unmounted, so reading far back costs no more than reading near the end.

While reading back, later entries are mounted ahead of the view: once the view comes within one
viewport height of the bottom of what is mounted, up to a batch is mounted below it after the
next frame, as many as there are entries wholly above the view to unmount (none at the top), and
the scroll position moves up by exactly the lines those took, so what is on screen does not move
and the window stays within ``window + 2 * load_batch``. Loads repeat, one per frame, until the
bottom is more than a viewport away. PgDn then only scrolls; at the very bottom, before the
prefetch, it mounts a batch itself, and a page that reaches entries not yet laid out waits for
that layout. Reading up, earlier entries are mounted ahead of the view the same way: above it,
as many as there are entries wholly below the view to unmount, with the scroll position moved
down by the lines they take, but not while the earlier row shows (there Home or PgUp loads);
PgUp that would bring that row into view mounts them itself first, so it moves a whole page of
entries. Entries are mounted ahead only in the direction the view last moved: a window
shorter than two screens is near both ends, and mounting at one would bring the other near,
back and forth. End (or a click on the later row) jumps to the newest.

One change to the window runs at a time (a lock) and is painted as one frame (a batch update):
the screen never shows entries mounted but not yet unmounted, nor a scroll position not yet
moved. ``loading_entries`` is true while a load is scheduled, running, or not yet laid out (until
the screen has nothing left to lay out after it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget

from steiner_tui.app.transcript import Entry
from steiner_tui.app.widgets.earlier_row import EarlierRow
from steiner_tui.app.widgets.later_row import LaterRow
from steiner_tui.app.widgets.removal import remove_released

__all__ = ["EntryWindow"]


class EntryWindow(VerticalScroll):
    """Entries as data, a window of them as widgets (compose an EarlierRow and a LaterRow)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "home_or_earlier", "Top", show=False, id="conversation.home",
                tooltip="Scroll to the top; at the top, load earlier messages"),
        Binding("pageup", "page_up_or_earlier", "Page up", show=False, id="conversation.page_up",
                tooltip="Scroll up a page; at the top, load earlier messages"),
        Binding("pagedown", "page_down_or_later", "Page down", show=False,
                id="conversation.page_down",
                tooltip="Scroll down a page; at the bottom, load later messages"),
        Binding("end", "end_or_latest", "Bottom", show=False, id="conversation.end",
                tooltip="Scroll to the bottom, showing the newest messages"),
    ]  # fmt: skip
    """Scrolling keys that also load earlier or later messages."""

    @dataclass
    class Loaded(Message, bubble=False):
        """``count`` entries were mounted, ``later`` ones (else earlier), ``ahead`` of the view."""

        count: int
        later: bool
        ahead: bool

    loading_entries: var[bool] = var(False)
    """Whether the window is changing: a load is scheduled or running, or the screen has not yet
    finished laying out what it mounted."""

    def __init__(self, *, window: int = 30, batch: int = 6, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window = window
        """How many entries stay mounted while following the bottom."""
        self.load_batch = batch
        """How many entries one load mounts."""
        self.entries: list[Entry] = []
        """Every entry, oldest first."""
        self._first = 0
        self._last = 0
        """Entries ``[_first, _last)`` are mounted."""
        self._widgets: dict[int, Widget] = {}
        self._changing = asyncio.Lock()
        """Held while the window changes: one load at a time."""
        self._prefetch_pending = False
        self._unlaid = False
        """A load changed the mounted entries and no layout has shown it yet."""
        self._pages_pending = 0
        """Pages down that wait for that layout."""
        self._settling = False
        """Laid out, and the screen may still have layout to do because of it."""
        self._reading_up = False
        """The view last moved up (not counting the moves that keep it in place during a load):
        entries are mounted ahead of the view in the direction it moves."""

    def make_widget(self, entry: Entry) -> Widget:
        """The widget that shows ``entry`` (subclasses say which)."""
        raise NotImplementedError

    def on_mount(self) -> None:
        """Learn when a layout has shown the last load."""
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

    @property
    def mounted(self) -> range:
        """The indices in ``entries`` of the mounted entries."""
        return range(self._first, self._last)

    @property
    def mounted_count(self) -> int:
        """How many entries have widgets."""
        return self._last - self._first

    @property
    def showing_latest(self) -> bool:
        """Whether the newest entry is mounted (not reading back in history)."""
        return self._last == len(self.entries)

    def widget_of(self, entry: Entry) -> Widget | None:
        """The mounted widget of ``entry``, if any."""
        return self._widgets.get(id(entry))

    def _show_counts(self) -> None:
        self.query_one(EarlierRow).show_count(self._first)
        self.query_one(LaterRow).show_count(len(self.entries) - self._last)

    def _make(self, entry: Entry) -> Widget:
        widget = self._widgets[id(entry)] = self.make_widget(entry)
        return widget

    def _sync_loading(self) -> None:
        self.loading_entries = (
            self._prefetch_pending or self._unlaid or self._settling or self._changing.locked()
        )

    @asynccontextmanager
    async def _changing_window(self) -> AsyncIterator[None]:
        """Hold the lock and the screen's updates while the mounted entries change."""
        async with self._changing:
            self._sync_loading()
            try:
                with self.app.batch_update():
                    yield
            finally:
                self.refresh(layout=True)  # the screen skipped its updates during the batch
        self._sync_loading()

    async def jump_to_latest(self) -> None:
        """Mount the newest entries again (after reading back in history).

        Only ``2 * load_batch`` of them, enough to fill the view: the jump is one key press, and
        Home or PgUp at the top mounts more.
        """
        async with self._changing_window():
            if not self.showing_latest:
                await self._mount_newest(2 * self.load_batch)

    async def _mount_newest(self, count: int | None = None) -> None:
        self._pages_pending = 0  # pages down while reading back: the newest are at the bottom
        await remove_released(self, list(self._widgets.values()))
        self._widgets.clear()
        self._last = len(self.entries)
        self._first = max(0, self._last - (self.window if count is None else count))
        widgets = [self._make(e) for e in self.entries[self._first :]]
        await self.mount_all(widgets, before=self.query_one(LaterRow))
        self._show_counts()
        self.anchor()

    async def _unmount(self, entries: list[Entry]) -> None:
        widgets = [w for w in (self._widgets.pop(id(e), None) for e in entries) if w is not None]
        await remove_released(self, widgets)

    async def _prune(self) -> None:
        """Unmount the oldest past ``window`` (while following the bottom)."""
        if self.mounted_count <= self.window + self.load_batch // 2:
            return
        stale = self.entries[self._first : self._last - self.window]
        self._first += len(stale)
        await self._unmount(stale)
        self._show_counts()

    @property
    def _most(self) -> int:
        """The most entries mounted while reading history."""
        return self.window + 2 * self.load_batch

    def _tops(self, size: Size) -> dict[Widget, int]:
        """Where each child starts in the scrolled content, as the next layout places it."""
        # ``arrange`` is what the compositor calls; cached until the children change.
        return {p.widget: p.region.y for p in self.arrange(size).placements}

    async def load_earlier(self) -> int:
        """Mount up to ``load_batch`` earlier entries; returns how many were mounted.

        Past ``window + 2 * load_batch`` mounted entries, as many of the newest are unmounted
        (they are below the view, which stays at the top).
        """
        return await self._load_earlier(keep_view=False)

    async def _load_earlier(self, *, keep_view: bool) -> int:
        """``load_earlier``; with ``keep_view`` (a prefetch), what is on screen does not move.

        A prefetch mounts only as many entries as it can unmount wholly below the view, within
        ``window + 2 * load_batch``, and moves the view down by the lines they take.
        """
        async with self._changing_window():
            count = min(self.load_batch, self._first)
            size = self.scrollable_content_region.size
            tops = self._tops(size) if keep_view else {}
            if keep_view:
                count = min(count, self._most - self.mounted_count + self._count_below(tops))
            if count <= 0:
                return 0
            start = self._first - count
            chunk = self.entries[start : self._first]
            kept = self._widgets.get(id(self.entries[self._first]))
            self._unlaid = True
            widgets = [self._make(e) for e in chunk]
            await self.mount_all(widgets, after=self.query_one(EarlierRow))
            self._first = start
            excess = self.mounted_count - self._most
            if excess > 0:
                self._last -= excess
                await self._unmount(self.entries[self._last : self._last + excess])
            self._show_counts()
            if keep_view and kept is not None and kept in tops:
                top = self._top_after(kept, widgets, size)
                if top is not None:
                    self._grow_virtual_size(size)
                    y = self.scroll_y + top - tops[kept]
                    self.scroll_to(y=y, animate=False, immediate=True)
        self.post_message(self.Loaded(len(chunk), later=False, ahead=keep_view))
        return len(chunk)

    def _top_after(self, entry: Widget, above: list[Widget], size: Size) -> int | None:
        """Where ``entry`` starts below the earlier row (if it shows) and the ``above`` widgets
        before it: the first mounted entry, with the entries just mounted above it if any (None:
        it does not show, as when the app is closing)."""
        # A vertical layout places a child after the ones above it only: laying out these costs
        # far less than the whole window.
        row = self.query_one(EarlierRow)
        placements = self.layout.arrange(self, [*([row] if row.display else []), *above, entry],
                                         size)  # fmt: skip
        return next((p.region.y for p in placements if p.widget is entry), None)

    def _grow_virtual_size(self, size: Size) -> None:
        """Let the scroll position reach content just mounted, before the layout that sizes it.

        The scroll position is clamped to the scrollable height of the last layout; moving the
        view down by the lines mounted above it may need more.
        """
        height = self.arrange(size).total_region.bottom
        if height > self.virtual_size.height:
            self.set_reactive(EntryWindow.virtual_size, self.virtual_size.with_height(height))

    def _count_below(self, tops: dict[Widget, int]) -> int:
        """How many of the newest mounted entries start below the bottom of the view."""
        bottom = self.scroll_y + self.scrollable_content_region.height
        count = 0
        for index in range(self._last - 1, self._first, -1):
            widget = self._widgets.get(id(self.entries[index]))
            top = None if widget is None else tops.get(widget)
            if top is None or top < bottom:
                break
            count += 1
        return count

    async def load_later(self) -> int:
        """Mount up to ``load_batch`` later entries; returns how many were mounted.

        The oldest mounted ones go past ``window + 2 * load_batch``, and the view moves up by
        the lines they took, so what was on screen stays where it was.
        """
        return await self._load_later(keep_view=False)

    async def _load_later(self, *, keep_view: bool) -> int:
        """``load_later``; with ``keep_view`` (a prefetch), only as many as can go above the view.

        A prefetch never mounts past ``window + 2 * load_batch``: it mounts only as many entries
        as it can unmount wholly above the view (none at the top), so the view does not move.
        """
        async with self._changing_window():
            count = min(self.load_batch, len(self.entries) - self._last)
            size = self.scrollable_content_region.size
            tops = self._tops(size)
            if keep_view:
                count = min(count, self._most - self.mounted_count + self._count_above(tops))
            if count <= 0:
                return 0
            chunk = self.entries[self._last : self._last + count]
            excess = max(0, self.mounted_count + count - self._most)
            stale = self.entries[self._first : self._first + excess]
            kept = self._widgets.get(id(self.entries[self._first + excess]))
            self._unlaid = True
            await self.mount_all([self._make(e) for e in chunk], before=self.query_one(LaterRow))
            self._last += count
            if stale:
                await self._unmount(stale)
                self._first += excess
            self._show_counts()
            top = None if not stale or kept is None else self._top_after(kept, [], size)
            if top is not None and kept is not None:
                shift = tops[kept] - top
                self.scroll_to(y=max(0, self.scroll_y - shift), animate=False, immediate=True)
        self.post_message(self.Loaded(count, later=True, ahead=keep_view))
        return count

    def _count_above(self, tops: dict[Widget, int]) -> int:
        """How many of the oldest mounted entries end, with the gap after them, above the view."""
        count = 0
        for index in range(self._first + 1, self._last):
            widget = self._widgets.get(id(self.entries[index]))
            top = None if widget is None else tops.get(widget)
            if top is None or top > self.scroll_y:  # the entry before it shows
                break
            count += 1
        return count

    # -- mounting ahead of the view ----------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Scrolling near the bottom mounts later entries ahead of the view."""
        super().watch_scroll_y(old_value, new_value)
        if not self.showing_latest:
            # Textual anchors a view scrolled to the bottom (keeps it there as content grows);
            # reading back, the bottom is only the end of what is mounted.
            self.release_anchor()
        if not self._changing.locked() and new_value != old_value:
            self._reading_up = new_value < old_value
        self._check_overscan()

    def _laid_out(self, screen: Screen[object]) -> None:
        if self._unlaid and not self._changing.locked():
            self._unlaid = False
            pages, self._pages_pending = self._pages_pending, 0
            if pages:
                y = self.scroll_y + pages * self.scrollable_content_region.height
                self.scroll_to(y=y, animate=False, immediate=True)
            self._check_overscan()  # a chain of prefetches keeps ``loading_entries`` up
            if not self._prefetch_pending:
                # New widgets lay themselves out once more after their first layout: settled
                # once the screen has nothing left to lay out.
                self._settling = self.call_after_refresh(self._settled)
            self._sync_loading()
        else:
            self._check_overscan()

    def _settled(self) -> None:
        self._settling = False
        self._sync_loading()

    def _near_bottom(self) -> bool:
        """Reading back, with the bottom of what is mounted within one viewport of the view."""
        if self.showing_latest or not self.size:
            return False
        return self.max_scroll_y - self.scroll_y <= self.scrollable_content_region.height

    def _near_top(self) -> bool:
        """Earlier entries to mount, and the top of what is mounted within one viewport of the
        view (not at the bottom: a view following the bottom of a short window stays put).

        Not while the earlier row shows either: there Home or PgUp loads. Mounting ahead would
        replace that row with the end of the entries above it, a change of what shows a frame
        after the key's own.
        """
        if not self._first or not self.size or self.is_vertical_scroll_end:
            return False
        size = self.scrollable_content_region.size
        if self.scroll_y > size.height:
            return False  # the common case while scrolling, without laying out the row
        return self._earlier_row_bottom(size) <= self.scroll_y

    def _earlier_row_bottom(self, size: Size) -> int:
        """Where the earlier row ends in the scrolled content (0 when it does not show): a view
        above this shows some of it."""
        row = self.query_one(EarlierRow)
        if not row.display:
            return 0
        return next((p.region.bottom for p in self.arrange(size).placements if p.widget is row), 0)

    def _ahead(self) -> str | None:
        """Which entries to mount ahead of the view: ``later`` or ``earlier`` (None: none).

        Only in the direction the view last moved: a window shorter than two screens is near
        both ends, and mounting at one end would bring the view near the other.
        """
        if self._reading_up:
            return "earlier" if self._near_top() else None
        return "later" if self._near_bottom() else None

    def _check_overscan(self) -> None:
        if self._prefetch_pending or self._unlaid or self._changing.locked():
            return
        if self._ahead() is not None and self.call_after_refresh(self._prefetch):
            self._prefetch_pending = True
            self._sync_loading()

    async def _prefetch(self) -> None:
        # Never waits for the lock (this runs in the screen's task): another load is under way,
        # and the layout after it looks again.
        try:
            busy = self._unlaid or self._changing.locked()
            ahead = None if busy or not self.is_attached else self._ahead()
            if ahead == "later":
                await self._load_later(keep_view=True)
            elif ahead == "earlier":
                await self._load_earlier(keep_view=True)
        finally:
            self._prefetch_pending = False
            self._sync_loading()

    # -- keys ----------------------------------------------------------------------------------

    async def action_home_or_earlier(self) -> None:
        """Load earlier entries when already at the top, then scroll home."""
        if self.scroll_y <= 0:
            await self.load_earlier()
        self.action_scroll_home()

    async def action_page_up_or_earlier(self) -> None:
        """Load earlier entries when already at the top, then page up.

        A page that would show the earlier row first mounts earlier entries above the view (as a
        prefetch does), so it moves a whole page of entries.
        """
        if self.scroll_y <= 0:
            await self.load_earlier()
        else:
            size = self.scrollable_content_region.size
            while self.scroll_y - size.height < self._earlier_row_bottom(size):
                if not await self._load_earlier(keep_view=True):
                    break
        self.action_page_up()

    async def action_page_down_or_later(self) -> None:
        """Load later entries when already at the bottom (reading history), then page down."""
        if not self._unlaid and self.is_vertical_scroll_end and not self.showing_latest:
            await self.load_later()
        self._check_scroll()
        self._page_down()

    def _page_down(self) -> None:
        """Down a page; after the layout if the page reaches entries just mounted below."""
        page = self.scrollable_content_region.height
        if self._unlaid and self.scroll_y + page > self.max_scroll_y:
            self._pages_pending += 1  # the bottom is not known yet
        else:
            self.scroll_to(y=self.scroll_y + page, animate=False, immediate=True)

    async def action_end_or_latest(self) -> None:
        """The newest entries, at the bottom."""
        if self.showing_latest:
            self.action_scroll_end()
        else:
            await self.jump_to_latest()  # anchored: the view starts at the bottom

    # Keys move the view at once. Textual animates key scrolling, and the animation's own
    # frame timer delays the first moved frame by up to two frame periods (33 ms at 60 fps).
    # Nor do they wait for a refresh: a scroll to a position worked out before a load moved
    # the view (a prefetch unmounting entries above it) would land that many lines off.

    def _check_scroll(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()

    def action_scroll_up(self) -> None:
        """Up one line."""
        self._check_scroll()
        self.scroll_up(animate=False, immediate=True)

    def action_scroll_down(self) -> None:
        """Down one line."""
        self._check_scroll()
        self.scroll_down(animate=False, immediate=True)

    def action_page_up(self) -> None:
        """Up one page."""
        self._check_scroll()
        self.scroll_to(y=self.scroll_y - self.scrollable_content_region.height, animate=False,
                       immediate=True)  # fmt: skip

    def action_page_down(self) -> None:
        """Down one page."""
        self._check_scroll()
        self._page_down()

    def action_scroll_home(self) -> None:
        """To the top of what is mounted."""
        self._check_scroll()
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        """To the bottom (after the next layout, which knows where the bottom is)."""
        self._check_scroll()
        self.scroll_end(animate=False)

    @on(EarlierRow.LoadRequested)
    async def _load_requested(self) -> None:
        await self.load_earlier()

    @on(LaterRow.JumpRequested)
    async def _jump_requested(self) -> None:
        await self.action_end_or_latest()
