"""The footer (Textual's own) shows the keys of what has focus, dimmed until the session opens."""

from __future__ import annotations

import gc
from pathlib import Path

from textual.widgets import Footer

from steiner_tui.app.app import make_app
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.helpers import finish, notices, send


def _keys(footer: Footer) -> list[str]:
    """The footer's keys as drawn (``FooterKey`` is queried by name: its module is private)."""
    return [str(key.render()).strip() for key in footer.query("FooterKey")]


async def test_the_footer_follows_focus(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.workbench.query_one(Footer)
        keys = _keys(footer)
        assert any(key.endswith("Send") for key in keys)  # the prompt has focus
        assert any(key.endswith("Lineage") for key in keys)
        app.workbench.skills.focus()
        await pilot.pause()
        await pilot.pause()
        keys = _keys(footer)
        assert not any(key.endswith("Send") for key in keys)
        assert any(key.endswith("Toggle skill") for key in keys)


async def test_the_footer_redraws_only_when_its_keys_change(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.workbench.query_one(Footer)
        drawn = list(footer.query("FooterKey"))
        app.workbench.refresh_bindings()  # nothing changed: the same key widgets stay
        app.workbench.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert list(footer.query("FooterKey")) == drawn
        app.workbench.skills.focus()  # other keys: drawn anew, once
        await pilot.pause()
        await pilot.pause()
        assert all(key not in drawn for key in footer.query("FooterKey"))
        assert any(
            str(key.render()).strip().endswith("Toggle skill") for key in footer.query("FooterKey")
        )


async def test_keys_drawn_over_are_let_go(app_for: AppFactory) -> None:
    """Each key Textual's ``Footer`` composes is data-bound to the footer's ``compact``, and
    the footer kept that watcher, so every key it ever drew stayed alive (about 20 a turn,
    500 after 24 turns)."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.workbench.query_one(Footer)
        kinds = {type(key) for key in footer.query("FooterKey")}
        for _ in range(5):  # other keys each time: drawn anew
            app.workbench.skills.focus()
            await pilot.pause()
            await pilot.pause()
            app.workbench.prompt.focus()
            await pilot.pause()
            await pilot.pause()
        gc.collect()
        kept = [o for o in gc.get_objects() if type(o) in kinds and not o.is_attached]
        # The last redraws' keys may still be on their way out (a removal's messages in flight
        # on a loaded machine: 12 were once); the ten redraws before them must be gone.
        assert len(kept) <= 2 * (len(footer.query("FooterKey")) + 1)
        assert any(str(key.render()).strip().endswith("Send") for key in footer.query("FooterKey"))


def _drawn(footer: Footer) -> list[str]:
    """The keys shown whole: displayed, inside a displayed group, ending left of the palette's."""
    palette = footer.query_one(".-command-palette")
    drawn = []
    for key in footer.query("FooterKey"):
        group = key.parent
        shown = key.display and (group is footer or (group is not None and group.display))
        if shown and key is not palette:
            assert key.region.right <= palette.region.x, (str(key.render()), key.region)
            drawn.append(str(key.render()).strip())
    return drawn


async def test_at_80_columns_every_key_shown_is_whole(app_for: AppFactory) -> None:
    """At 80x24 the footer shows the keys that fit whole (Inspect among them) and F1, which lists
    the rest; a key left out still works. At 120x36 every key shows."""
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=(80, 24), message_hook=messages.append) as pilot:
        for _ in range(4):
            await pilot.pause()
        footer = app.workbench.query_one(Footer)
        drawn = _drawn(footer)
        assert drawn == [
            "⏎ Send",
            "⇧Tab Mode",
            "f4 Compaction",
            "^l Lineage",
            "f2 Inspect",
            "f1 Help",
        ]
        await pilot.press("f3")  # Sub-agents: not drawn, still bound
        await pilot.pause()
        assert any(text.startswith("No sub-agents") for text in notices(messages))
        await pilot.resize_terminal(120, 36)
        for _ in range(4):
            await pilot.pause()
        assert "f3 Sub-agents" in _drawn(footer) and "^q Quit" in _drawn(footer)


async def test_a_resumed_session_at_80_columns_shows_only_whole_keys(
    project: Path, config_dir: Path
) -> None:
    """A launch that resumes a conversation mounts its entries in a batch update, during which
    Textual runs after-refresh callbacks without laying anything out: the footer's keys are
    measured when the screen is laid out, so no key is cut and F1 shows."""
    first = make_app(request_for(project, config_dir, record=True))
    async with first.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for text in ("read README.md", "find main", "what is in this project?"):
            await send(pilot, text)
            await finish(pilot)
    request = request_for(project, config_dir, record=True, resume="latest")
    resumed = make_app(request, defer_open=True)
    async with resumed.run_test(size=(80, 24)) as pilot:
        await finish(pilot)
        for _ in range(4):
            await pilot.pause()
        drawn = _drawn(resumed.workbench.query_one(Footer))
        assert drawn[-1] == "f1 Help" and "f2 Inspect" in drawn
