"""Pinning from the conversation (issue 20): user messages, replies and tool blocks take the
focus, ``p`` pins and unpins the focused one whatever its kind, and every entry of a pinned
message shows the pin mark: on pin and unpin, after ``/pin N``, after resume and fork, and when
the compaction's unpin question takes pins away.

The session is the offline model on the sample project (``test_steering``'s setup); the
emergency stage's test has a small trigger and long turns."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Markdown

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.compaction_prompt import UnpinPrompt
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.reply import PIN_MARK
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.providers.offline import OfflineProvider
from steiner_tui.sessions import SessionStore, fork_session
from tests.app.conftest import SESSION_DATE, SIZE, AppFactory, request_for
from tests.app.helpers import finish, send, static_text
from tests.app.test_steering import BIG, LINE, _turns


def _pane(app: SteinerApp) -> ConversationPane:
    return app.workbench.conversation


def _marked(widget: Widget) -> bool:
    """Whether ``widget`` shows the pin mark (a reply in its border title, others in text)."""
    if isinstance(widget, Markdown):
        return PIN_MARK in str(widget.border_title or "")
    assert isinstance(widget, UserMessage | ToolBlock)
    return PIN_MARK in static_text(widget)


def _shown(app: SteinerApp, kind: type[Widget]) -> list[Widget]:
    pane = _pane(app)
    return [w for w in pane.children if isinstance(w, kind)]


async def _tab_to(pilot: Pilot[None], wanted: Widget) -> None:
    """Press Tab until ``wanted`` has the focus (as a person does)."""
    for _ in range(60):
        if pilot.app.focused is wanted:
            return
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached {wanted!r}")


async def test_tab_reaches_messages_and_replies_and_p_pins_each_kind(
    app_for: AppFactory, project: Path
) -> None:
    (project / "big.md").write_text(BIG, encoding="utf-8")
    app = app_for()
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("read big.md",))
        runner = app.workbench.hold.driver.runner
        pane = _pane(app)
        user = _shown(app, UserMessage)[-1]
        reply = next(w for w in pane.children if isinstance(pane.entry_of(w), ReplyEntry))
        block = _shown(app, ToolBlock)[-1]
        for widget in (user, block, reply):
            assert not _marked(widget)
            await _tab_to(pilot, widget)
            await pilot.press("p")
            await finish(pilot)
            assert _marked(widget)
        conversation = runner.conversation
        user_message = next(m for m in conversation if m.role == "user")
        result = next(m for m in conversation if m.role == "tool")
        answer = next(m for m in conversation if m.role == "assistant" and m.content.strip())
        # The reply pinned is the whole assistant message (text and calls).
        assert set(runner.lineage.pins) == {pin_key(m) for m in (user_message, result, answer)}
        await _tab_to(pilot, user)
        await pilot.press("p")  # again: unpinned, the mark goes
        await finish(pilot)
        assert not _marked(user) and _marked(block) and _marked(reply)
        assert pin_key(user_message) not in runner.lineage.pins


async def test_typing_with_an_entry_focused_goes_to_the_prompt(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("hello",))
        user = _shown(app, UserMessage)[-1]
        user.focus()
        await pilot.press("h", "i")
        assert app.focused is app.workbench.prompt
        assert app.workbench.prompt.text == "hi"
        assert app.workbench.hold.driver.runner.lineage.pins == ()
        # With the prompt focused, p is a letter: nothing is pinned.
        await pilot.press("p")
        assert app.workbench.prompt.text == "hip"
        assert app.workbench.hold.driver.runner.lineage.pins == ()


async def test_pin_n_marks_the_entry_and_unpin_takes_the_mark_away(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("hello", "what is in this project?"))
        await send(pilot, "/pin 1")
        await finish(pilot)
        first = _shown(app, UserMessage)[0]
        assert isinstance(first.entry, UserEntry) and first.entry.text == "hello"
        assert _marked(first)
        assert not any(_marked(w) for w in _shown(app, UserMessage)[1:])
        await send(pilot, "/unpin 1")
        await finish(pilot)
        assert not _marked(first)


async def test_marks_show_after_resume_and_fork(project: Path, config_dir: Path) -> None:
    (project / "big.md").write_text(BIG, encoding="utf-8")
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("read big.md", "hello"))
        block = _shown(app, ToolBlock)[-1]
        block.focus()
        await pilot.press("p")
        await send(pilot, "/pin 1")
        await finish(pilot)
        assert len(app.workbench.hold.driver.runner.lineage.pins) == 2
        session_id = app.workbench.hold.session.session_id
    store = SessionStore(config_dir / "sessions")
    fork_session(store, session_id, clock=lambda: SESSION_DATE, new_id="forked")
    for resume in ("latest", "forked"):
        again = make_app(request_for(project, config_dir, record=True, resume=resume))
        async with again.run_test(size=(120, 36)) as pilot:
            await finish(pilot)
            users = _shown(again, UserMessage)
            assert [_marked(w) for w in users] == [True, False]
            blocks = _shown(again, ToolBlock)
            assert [_marked(w) for w in blocks] == [True]
            assert isinstance(blocks[0].entry, ToolEntry) and blocks[0].entry.key


async def test_unpinning_from_the_question_takes_the_mark_away(
    app_for: AppFactory, project: Path
) -> None:
    """Pins that alone cannot fit: the compaction asks which to unpin, in the conversation; the
    one chosen loses its pin and its mark, the other keeps both."""
    for n in (1, 2, 3):
        (project / f"big{n}.md").write_text(f"# Big {n}\n" + f"{LINE} {n}\n" * 160)
    # Pinned on a 32k window, then on 8k (where a read takes at most a quarter of the room
    # under the trigger, so reads pinned there alone would still fit).
    wide = ModelInfo(context_window=32_000, max_output=1024, tokenizer="heuristic")
    app = app_for(MainModel("offline", "offline", OfflineProvider(project), wide))
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        runner = app.workbench.hold.driver.runner
        for n in (1, 2):
            await _turns(pilot, (f"read big{n}.md",))
            _shown(app, ToolBlock)[-1].focus()
            await pilot.press("p")
            await finish(pilot)
        blocks = _shown(app, ToolBlock)
        assert [_marked(b) for b in blocks] == [True, True]
        info = msgspec.structs.replace(wide, context_window=8000)
        provider = OfflineProvider(project)
        runner.switch_model(MainModel("offline", "offline", provider, info, threshold_tokens=7900))
        await send(pilot, "read big3.md")
        for _ in range(500):
            await pilot.pause()
            prompts = [p for p in app.screen.query(UnpinPrompt) if p.is_open]
            if prompts and app.focused is prompts[0]:
                break
            if prompts:
                await pilot.press("f8")
        else:
            raise AssertionError("no unpin question appeared")
        assert "the pinned messages alone do not fit the window" in static_text(prompts[0])
        await pilot.press("1")
        await finish(pilot)
        assert len(runner.lineage.pins) == 1
        assert [_marked(b) for b in blocks] == [False, True]


async def test_a_pin_survives_the_emergency_stage_with_its_mark(
    app_for: AppFactory, project: Path
) -> None:
    """Long recent turns keep the prompt over the trigger after the normal stage, so the
    emergency stage runs too: the pinned first message is kept word for word, and marked."""
    info = ModelInfo(context_window=16_000, max_output=1024, tokenizer="heuristic")
    main = MainModel("offline", "offline", OfflineProvider(project), info, threshold_tokens=3_000)
    app = app_for(main)
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        runner = app.workbench.hold.driver.runner
        await _turns(pilot, ("hello",))
        await send(pilot, "/pin 1")
        await finish(pilot)
        first = runner.conversation[0]
        for n in range(4):
            await _turns(pilot, (f"note {n}: " + f"word{n} " * 700,))
        outcomes = [g.outcome for g in runner.lineage.generations if g.outcome is not None]
        assert any("emergency" in o.modes for o in outcomes)
        assert first in runner.lineage.active.messages
        assert pin_key(first) in runner.lineage.pins
        user = _shown(app, UserMessage)[0]
        assert isinstance(user.entry, UserEntry) and user.entry.text == "hello"
        assert _marked(user)


def _messages(count: int) -> list[Entry]:
    """Questions of 2 to 5 lines and one-line answers, as a long session's entries."""
    return [
        UserEntry("\n".join([f"question {i}", *(f"line {j}" for j in range(i % 4 + 1))]))
        if i % 2
        else ReplyEntry(f"answer **{i}**")
        for i in range(count)
    ]


async def test_a_focused_entry_at_the_bottom_keeps_following(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = _pane(app)
        await pane.load(_messages(60))
        await pilot.pause()
        newest = pane.widget_of(pane.entries[-1])
        assert newest is not None
        newest.focus()  # fully on screen: the view does not move
        await pilot.pause()
        for i in range(5):
            await pane.add(NoticeEntry(f"notice {i}"))
            await pilot.pause()
        assert not pane.away and pane.unseen == 0
        assert pane.scroll_y == pane.max_scroll_y  # still at the end, following


async def test_focused_entries_read_back_through_5000_messages(app_for: AppFactory) -> None:
    """With an entry focused, PgUp at the top of the run still shows the entries before, the
    run keeps at most ``window`` widgets, and End brings the newest back."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = _pane(app)
        await pane.load(_messages(5_000))
        await pilot.pause()
        first = pane.widget_of(pane.entries[pane.shown.start])
        assert first is not None
        first.focus()  # as Tab does: the view scrolls up to it
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        assert pane.away
        starts = [pane.shown.start]
        for _ in range(6):
            await pilot.press("pageup")
            await pilot.pause()
            starts.append(pane.shown.start)
        assert starts[-1] < starts[0]  # the run moved back
        assert len(pane.query(".conversation-item")) <= pane.window
        await pilot.press("end")
        await pilot.pause()
        assert pane.showing_latest
        newest = pane.widget_of(pane.entries[-1])
        assert newest is not None
        await _tab_to(pilot, newest)  # Tab reaches the entries of the run shown


async def test_a_burst_typed_onto_an_entry_is_text_and_a_key_alone_pins(
    app_for: AppFactory,
) -> None:
    """With a burst window (the default; the tests' config has none): "please compare" typed
    onto a focused entry is text in the prompt (its ``p`` pinned nothing, no letter was lost);
    ``p`` pressed alone pins. The router's clock is held still and its wait is a gate the test
    opens, so what is a burst does not depend on how fast this machine is."""
    app = app_for(config={"ui": {"typing_burst_ms": 80}})
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("hello",))
        router = app.workbench.typing
        now = [0.0]
        gate = asyncio.Event()

        async def wait(_: float) -> None:
            await gate.wait()

        router.clock, router.wait = (lambda: now[0]), wait
        runner = app.workbench.hold.driver.runner
        user = _shown(app, UserMessage)[-1]
        user.focus()
        await pilot.pause()
        await pilot.press(*"please compare")
        assert app.workbench.prompt.text == "please compare"
        assert app.focused is app.workbench.prompt
        assert runner.lineage.pins == ()
        gate.set()
        await finish(pilot)
        assert runner.lineage.pins == ()
        gate.clear()
        app.workbench.prompt.clear()
        now[0] += 1.0  # the burst is over
        user.focus()
        await pilot.pause()
        await pilot.press("p")
        assert runner.lineage.pins == ()  # held: it might start a burst
        gate.set()
        await finish(pilot)
        assert len(runner.lineage.pins) == 1
        assert app.workbench.prompt.text == ""


async def test_a_key_held_on_a_late_loop_waits_one_more_window(app_for: AppFactory) -> None:
    """On a loaded machine (a CPU hog beside a full test run) the "p" that began a burst typed
    onto an entry pinned it and was lost from the text: its window ran out before the next key
    was read. A window the process woke from late is followed by one more."""
    app = app_for(config={"ui": {"typing_burst_ms": 80}})
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("hello",))
        router = app.workbench.typing
        now = [0.0]
        gates = [asyncio.Event(), asyncio.Event()]
        waits: list[float] = []

        async def wait(_: float) -> None:
            gate = gates[len(waits)]
            waits.append(now[0])
            if len(waits) == 1:
                now[0] += 1.0  # woken a second late
            await gate.wait()

        router.clock, router.wait = (lambda: now[0]), wait
        runner = app.workbench.hold.driver.runner
        _shown(app, UserMessage)[-1].focus()
        await pilot.pause()
        await pilot.press("p")
        gates[0].set()
        await pilot.pause()
        assert len(waits) == 2 and runner.lineage.pins == ()  # still held: one more window
        await pilot.press(*"lease")
        assert app.workbench.prompt.text == "please"
        gates[1].set()
        await finish(pilot)
        assert runner.lineage.pins == ()
