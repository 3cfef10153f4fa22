"""Steering the context from the workbench (issue 20): the compaction modes ``ask`` and ``off``,
the mode key, pins from the conversation, masking from the cost ranking, and what-if.

The session is the offline model on the sample project with the soft trigger at 4,000 tokens:
four short turns stay under it, and the request after ``read big.md``'s result crosses it, with
the first turn old enough to summarize."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.widgets.compaction_prompt import CompactionPrompt, UnpinPrompt
from steiner_tui.app.widgets.context_charts import RequestChart
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.engine.compaction.masking import MASK_MODE
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.providers.offline import OfflineProvider
from steiner_tui.sessions import SessionStore, fork_session
from tests.app.conftest import SESSION_DATE, AppFactory, request_for
from tests.app.helpers import finish, key_alone, send, static_text

THRESHOLD = 4000
BEFORE = ("hello", "what is in this project?", "search for TODO")
LINE = "a line of the big file with words"
BIG = "# Big\n" + f"{LINE}\n" * 100


def config(mode: str) -> dict[str, Any]:
    return {
        "compaction": {"mode": mode},
        "models": {"offline/offline": {"compaction_threshold_tokens": THRESHOLD}},
    }


def _app(app_for: AppFactory, project: Path, mode: str) -> SteinerApp:
    (project / "big.md").write_text(BIG, encoding="utf-8")
    return app_for(config=config(mode))


async def _turns(pilot: Pilot[None], texts: tuple[str, ...]) -> None:
    for text in texts:
        await send(pilot, text)
        await finish(pilot)


async def _question(pilot: Pilot[None]) -> CompactionPrompt:
    """Wait (by handling messages, not by time) for the ask prompt to appear, then turn to it
    with F8 (a question never takes the focus by itself: typing never answers it)."""
    app = pilot.app
    for _ in range(500):
        await pilot.pause()
        found = [p for p in app.screen.query(CompactionPrompt) if p.is_open]
        if found and app.focused is found[0]:
            return found[0]
        if found:
            assert app.focused is not found[0]
            await pilot.press("f8")
    raise AssertionError("no compaction question appeared")


def _generations(app: SteinerApp) -> int:
    return len(app.workbench.hold.driver.lineage.generations)


async def test_ask_pauses_before_the_request_and_compact_now_compacts(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        assert app.workbench.status.compaction == "ask"
        await _turns(pilot, BEFORE)
        sent = len(app.workbench.hold.session.snapshots.all())
        await send(pilot, "read big.md")
        prompt = await _question(pilot)
        text = static_text(prompt.query_one(".compaction-question"))
        assert "reached the soft trigger (4,000)" in text
        assert "s send anyway" in text and "m mask the 1 largest tool result" in text
        # Paused: the request that crossed the trigger was not sent.
        assert len(app.workbench.hold.session.snapshots.all()) == sent + 1
        await pilot.press("c")
        await finish(pilot)
        assert _generations(app) == 2
        assert app.workbench.hold.driver.lineage.active.outcome is not None
        assert "→ compact now" in static_text(prompt.query_one(".compaction-question"))
        assert not app.workbench.busy


async def test_an_open_question_says_which_key_turns_to_it(
    app_for: AppFactory, project: Path
) -> None:
    """Typing never answers a question, so before F8 it says so: "F8 to answer, then c ...";
    turned to, it lists its keys and Esc (back to the prompt)."""
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        for _ in range(500):
            await pilot.pause()
            if [p for p in app.screen.query(CompactionPrompt) if p.is_open]:
                break
        prompt = app.screen.query_one(CompactionPrompt)
        text = static_text(prompt.query_one(".compaction-question"))
        assert "F8 to answer, then c compact now" in text
        await pilot.press("f8")
        await pilot.pause()
        text = static_text(prompt.query_one(".compaction-question"))
        assert "F8" not in text and text.rstrip().endswith("Esc back")
        await pilot.press("c")
        await finish(pilot)


async def test_ask_compact_with_a_focus_steers_the_summary(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        await _question(pilot)
        await key_alone(pilot, "f")  # a key of its own, not the start of a burst of typing
        await pilot.press(*"the parser")
        await pilot.press("enter")
        await finish(pilot)
        outcome = app.workbench.hold.driver.lineage.active.outcome
        assert outcome is not None and outcome.steering == "the parser"


async def test_esc_on_the_question_goes_back_to_the_prompt_and_keeps_the_run(
    app_for: AppFactory, project: Path
) -> None:
    """F8 turns to the question; Esc there (or in its focus line) went to the screen and
    cancelled the whole run. Like a permission request's, it now goes back to the prompt
    without answering: the question still waits, F8 turns to it again."""
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        prompt = await _question(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.workbench.prompt
        assert prompt.is_open and app.workbench.busy
        await pilot.press("f8")
        assert app.focused is prompt
        await pilot.press("f")
        await pilot.press("escape")  # from the focus line too
        await pilot.pause()
        assert app.focused is app.workbench.prompt
        assert prompt.is_open and app.workbench.busy
        await pilot.press("f8")
        await pilot.press("c")
        await finish(pilot)
        assert _generations(app) == 2


async def test_ask_send_anyway_sends_without_compacting(app_for: AppFactory, project: Path) -> None:
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        await _question(pilot)
        sent = len(app.workbench.hold.session.snapshots.all())
        await pilot.press("s")
        await finish(pilot)
        assert _generations(app) == 1
        snapshots = app.workbench.hold.session.snapshots.all()
        assert len(snapshots) > sent
        assert snapshots[sent].estimated_prompt_tokens >= THRESHOLD


async def test_ask_mask_largest_masks_in_a_new_generation(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "ask")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        await _question(pilot)
        await pilot.press("m")
        await finish(pilot)
        lineage = app.workbench.hold.driver.lineage
        outcome = lineage.active.outcome
        assert outcome is not None and outcome.modes == (MASK_MODE,)
        results = [m for m in lineage.active.messages if m.role == "tool"]
        assert results[-1].content.startswith(MASK_PREFIX)
        # What was sent is not rewritten: the first generation still holds the full result.
        first = [m for m in lineage.generations[0].messages if m.role == "tool"][-1]
        assert LINE in first.content and not first.content.startswith(MASK_PREFIX)


async def test_off_never_compacts_and_warns_near_the_hard_limit(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "off")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, (*BEFORE, "read big.md", "what is in this project?"))
        assert _generations(app) == 1
        tokens = [s.estimated_prompt_tokens for s in app.workbench.hold.session.snapshots.all()]
        assert max(tokens) >= THRESHOLD
        assert not [p for p in app.screen.query(CompactionPrompt)]


async def test_the_mode_key_cycles_auto_ask_off_live(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        runner = app.workbench.hold.driver.runner
        app.workbench.conversation.focus()
        seen = []
        for _ in range(3):
            await pilot.press("f4")
            await finish(pilot)
            seen.append((runner.compaction_mode, app.workbench.status.compaction))
        assert seen == [("ask", "ask"), ("off", "off"), ("auto", "auto")]
        await send(pilot, "/compaction off")
        await finish(pilot)
        assert runner.compaction_mode == "off"


async def test_pins_from_the_conversation_survive_compaction_and_show_in_the_lineage(
    app_for: AppFactory, project: Path
) -> None:
    (project / "big.md").write_text(BIG, encoding="utf-8")
    app = app_for()  # the default trigger: only /compact compacts
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("read big.md", *BEFORE))
        runner = app.workbench.hold.driver.runner
        block = app.screen.query(ToolBlock).first()
        block.focus()
        await pilot.press("p")
        await finish(pilot)
        assert runner.lineage.pins == (f"1:tool:{block.entry.call_id}",)
        await send(pilot, "/pin 1")  # the first user message: "read big.md"
        await finish(pilot)
        assert len(runner.lineage.pins) == 2
        await send(pilot, "/pins")
        await finish(pilot)
        listed = app.workbench.conversation.entries[-1]
        assert isinstance(listed, NoticeEntry)
        assert listed.text.startswith("pinned:\n#1 user (turn 1)")
        panel_rows = static_text(app.screen.query_one("#budget-rows"))
        assert "pinned (2)" in panel_rows
        await send(pilot, "/compact")
        await finish(pilot)
        lineage = runner.lineage
        assert len(lineage.generations) == 2
        kept = lineage.active.messages
        assert any(m.role == "tool" and m.content.count(LINE) == 100 for m in kept)
        assert any(m.role == "user" and m.content.endswith("read big.md") for m in kept)
        await pilot.press("ctrl+l")
        await finish(pilot)
        facts = static_text(app.screen.query_one("#pinned"))
        assert "read" in facts and "big.md" in facts


async def test_masking_from_the_ranking_makes_a_generation_in_the_lineage(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "auto")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("read big.md",))
        ranking = app.screen.query_one(CostRanking)
        row = next(i for i, item in enumerate(ranking.items) if item.kind == "file")
        assert ranking.items[row].label == "big.md" and ranking.items[row].action == "drop_reads"
        ranking.focus()
        ranking.highlighted = row
        await pilot.press("m")
        await finish(pilot)
        lineage = app.workbench.hold.driver.lineage
        outcome = lineage.active.outcome
        assert outcome is not None and outcome.modes == (MASK_MODE,)
        assert outcome.steering == "drop reads: big.md"
        assert not any(i.kind == "file" and i.action for i in ranking.items)
        await pilot.press("ctrl+l")
        await finish(pilot)
        assert "drop reads: big.md" in static_text(app.screen.query_one("#generation-heading"))


async def test_what_if_adjusts_the_threshold_and_writes_it_on_request(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, "auto")
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, (*BEFORE, "read big.md"))
        view = app.screen.query_one(WhatIfView)
        assert view.figures is not None
        assert view.figures.observed.count == 1  # it compacted once at 4,000
        view.focus()
        for _ in range(5):
            await pilot.press("plus")
        await finish(pilot)
        assert view.figures.trial.setting.threshold == THRESHOLD + 5 * 1600
        assert view.figures.trial.count == 0
        assert "never compacts" in static_text(view)
        path = project / ".steiner" / "config.toml"
        before = path.read_text(encoding="utf-8")
        assert "compaction_threshold_tokens" not in before  # written only when asked
        await pilot.press("w")  # shows the change first (test_config_save), Enter writes it
        await pilot.pause()
        await pilot.press("enter")
        await finish(pilot)
        written = path.read_text(encoding="utf-8")
        assert written.startswith(before)  # the rest of the file is kept as it was
        saved = tomllib.loads(written)
        assert saved["context"]["files"] == ["NOTES.md"]
        assert saved["models"]["offline/offline"]["compaction_threshold_tokens"] == 12000
        assert app.workbench.hold.driver.runner.model.budget.soft_threshold == 12000
        await send(pilot, "/whatif 6000")
        await finish(pilot)
        assert view.figures.trial.setting.threshold == 6000
        assert app.focused is view
        chart = app.screen.query_one(RequestChart)
        assert chart.whatif == view.figures.trial  # drawn over the tokens-per-request chart


async def test_pins_that_alone_cannot_fit_ask_which_to_unpin(
    app_for: AppFactory, project: Path
) -> None:
    for n in (1, 2, 3):
        (project / f"big{n}.md").write_text(f"# Big {n}\n" + f"{LINE} {n}\n" * 160)
    # The reads are pinned on a 32k window; on 8k a read takes at most a quarter of the room
    # under the trigger, so pinned reads alone no longer outgrow the window they were read on.
    wide = ModelInfo(context_window=32_000, max_output=1024, tokenizer="heuristic")
    app = app_for(MainModel("offline", "offline", OfflineProvider(project), wide))
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        runner = app.workbench.hold.driver.runner
        for n in (1, 2):
            await _turns(pilot, (f"read big{n}.md",))
            app.screen.query(ToolBlock).last().focus()
            await pilot.press("p")
            await finish(pilot)
        assert len(runner.lineage.pins) == 2
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
                await pilot.press("f8")  # turn to it: it never takes the focus by itself
        else:
            raise AssertionError("no unpin question appeared")
        text = static_text(prompts[0])
        assert "the pinned messages alone do not fit the window" in text
        assert "1  read path=big" in text and "2  read path=big" in text
        await pilot.press("escape")  # back to the prompt; the question still waits
        await pilot.pause()
        assert app.focused is app.workbench.prompt and prompts[0].is_open
        await pilot.press("f8")
        assert app.focused is prompts[0]
        await pilot.press("a")
        await finish(pilot)
        assert runner.lineage.pins == ()
        assert "→ unpinned 2" in static_text(prompts[0])
        assert len(runner.lineage.generations) >= 2


async def test_pins_made_in_the_app_survive_resume_and_fork(
    project: Path, config_dir: Path
) -> None:
    (project / "big.md").write_text(BIG, encoding="utf-8")
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, ("read big.md", "hello"))
        await send(pilot, "/pin 1")
        await finish(pilot)
        pins = app.workbench.hold.driver.runner.lineage.pins
        assert len(pins) == 1
        session_id = app.workbench.hold.session.session_id
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        assert resumed.workbench.hold.driver.runner.lineage.pins == pins
        assert "pinned (1)" in static_text(resumed.screen.query_one("#budget-rows"))
    store = SessionStore(config_dir / "sessions")
    fork_session(store, session_id, clock=lambda: SESSION_DATE, new_id="forked")
    forked = make_app(request_for(project, config_dir, record=True, resume="forked"))
    async with forked.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        assert forked.workbench.hold.driver.runner.lineage.pins == pins


class _WhatIfOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield WhatIfView(id="whatif")


async def test_what_if_follows_the_session_threshold_until_the_person_moves_it() -> None:
    """A local server's window arrives after the dry run: the threshold tried followed the
    default window's (22,938 on a window of 8,192, drawn as a what-if on the chart) until it
    was moved by hand."""
    app = _WhatIfOnly()
    async with app.run_test() as pilot:
        view = app.query_one(WhatIfView)
        view.set_budget(22938, 32768, "auto", "dry run")
        assert view.setting == (22938, "auto")
        view.set_budget(5735, 8192, "auto", "dry run")  # the server said 8,192
        assert view.setting == (5735, "auto")
        view.focus()
        await pilot.press("plus")  # moved by hand: it stays where the person put it
        assert view.setting == (5735 + 400, "auto")
        view.set_budget(5000, 8192, "auto", "request #1")
        assert view.setting == (5735 + 400, "auto")
