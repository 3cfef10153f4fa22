"""What the workbench says stays where it can be read: a command's error or answer is an entry
in the conversation (a toast is gone in five seconds), ``/model gpt-5`` names the reference
meant, a list reads from the left, the status says when a run waits for an answer, and Esc on
a compaction says it was abandoned."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.app.messages import RunEnded
from steiner_tui.app.widgets.notice_row import NoticeRow
from steiner_tui.config import nearest_ref
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, said, send, static_text
from tests.app.test_steering import BEFORE, _app, _question, _turns


def test_a_model_name_without_its_provider_names_the_reference_meant() -> None:
    assert nearest_ref("gpt-5", ()) == "openai/gpt-5"
    assert nearest_ref("claude-sonnet-4", ()) == "anthropic/claude-sonnet-4"
    assert nearest_ref("small", ("loop/small", "offline/offline")) == "loop/small"
    assert nearest_ref("off", ("local/smollm2-135m", "offline/offline")) == "offline/offline"
    assert nearest_ref("SmolLM", ("local/smollm2-135m", "offline/offline")) == "local/smollm2-135m"
    assert nearest_ref("openai/gpt-5", ()) is None
    assert nearest_ref("mystery", ()) is None


async def test_command_errors_and_answers_are_conversation_entries(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, "/pin 99")
        await send(pilot, "/whatif abc")
        await send(pilot, "/model gpt-5")
        await send(pilot, "/nope")
        await pilot.pause()
        texts = said(app)
        assert any(t.startswith("/pin ") and "99" in t for t in texts), texts
        assert any("/whatif takes a number of tokens, not 'abc'" in t for t in texts), texts
        assert any("did you mean /model openai/gpt-5?" in t for t in texts), texts
        assert any("unknown command /nope" in t for t in texts), texts


async def test_the_pin_list_reads_from_the_left(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await _turns(pilot, ("first question", "second question"))
        await send(pilot, "/pin")
        await pilot.pause()
        row = list(app.workbench.query(NoticeRow))[-1]
        assert static_text(row).startswith("messages (/pin N pins one):\n")
        assert row.has_class("-lines") and row.styles.text_align == "left"


async def test_the_status_says_a_run_waits_for_an_answer(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        prompt = await _question(pilot)
        status = app.workbench.status
        assert status.waiting and "waiting for your answer" in status.render().plain
        await pilot.press("c")  # compact now
        await finish(pilot)
        assert not prompt.is_open and not status.waiting


async def test_esc_on_a_compaction_says_it_was_abandoned(app_for: AppFactory) -> None:
    """A compaction cancelled (Esc cancels the run's worker, which ends as ``RunEnded``) says
    so, and that the conversation is as it was; a cancelled reply stays "interrupted"."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        screen = app.workbench
        screen.post_message(RunEnded("cancelled", compaction=True))
        screen.post_message(RunEnded("cancelled"))
        await pilot.pause()
        assert said(app)[-2:] == [
            "compaction abandoned by you: the conversation is unchanged",
            "interrupted by you",
        ]


async def test_pin_numbers_stay_across_a_compaction(app_for: AppFactory, project: Path) -> None:
    """A message keeps its ``/pin`` number when a compaction summarizes the ones before it: the
    numbers are not positions."""
    app = _app(app_for, project, "off")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        steering = app.workbench.hold.steering

        def numbers() -> dict[str, str]:
            pairs = (line.split(" ", 1) for line in steering.numbered())
            return {label: number for number, label in pairs}

        before = numbers()
        app.workbench.action_compact()
        await finish(pilot)
        assert app.workbench.hold.driver.lineage.active.id == 1
        after = numbers()
        kept = set(before) & set(after)
        assert kept and all(before[label] == after[label] for label in kept)


async def test_a_notice_that_wraps_reads_from_the_left(app_for: AppFactory) -> None:
    """Centred line by line, a wrapped notice reads oddly: it reads from the left; a notice
    on one line stays centred, and reads from the left once a narrower terminal wraps it."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await finish(pilot)
        await send(pilot, "/whatif abc")
        await send(pilot, "/model gpt-5")
        await pilot.pause()
        short, wrapped = list(app.workbench.query(NoticeRow))[-2:]
        assert "did you mean /model openai/gpt-5?" in static_text(wrapped)
        assert wrapped.has_class("-lines") and wrapped.styles.text_align == "left"
        assert not short.has_class("-lines") and short.styles.text_align == "center"
        await pilot.resize_terminal(40, 24)
        await pilot.pause()
        assert short.has_class("-lines") and short.styles.text_align == "left"
