"""Resume: exact conversation, skill replay, LastMainRequest seeds, the start date, no usage."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import SkillStateEvent
from steiner_tui.engine.messages import Message, to_provider_message
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.resume import LATEST, find_session
from steiner_tui.sessions.store import SessionNotFoundError
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession


async def _two_turns_with_skills(open_session: OpenSession) -> str:
    harness = open_session()
    harness.driver.toggle_skill("code-review")
    harness.driver.toggle_skill("test-first")
    await harness.driver.submit("one")
    harness.driver.toggle_skill("test-first")
    await harness.driver.submit("two")
    harness.log.close()
    return harness.session_id


async def test_replayed_envelopes_emit_skill_states(open_session: OpenSession) -> None:
    session_id = await _two_turns_with_skills(open_session)
    resumed = open_session(resume=session_id)
    states = [(e.name, e.state) for e in resumed.sink.events if isinstance(e, SkillStateEvent)]
    assert states == [
        ("code-review", "active"),
        ("test-first", "active"),
        ("test-first", "inactive"),
    ]
    assert resumed.driver.skills.enabled == ("code-review",)
    # Seeded from the envelopes already sent: the next message carries no delta.
    await resumed.driver.submit("three")
    last_user = [m for m in resumed.driver.lineage.active.messages if m.role == "user"][-1]
    assert split_skill_blocks(last_user.content)[1] == []
    assert last_user.content == "three"


async def test_seed_kept_when_alias_model_and_cache_key_match(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("one")
    logged = harness.runner.last_main_request
    harness.log.close()
    resumed = open_session(resume=harness.session_id)
    assert resumed.runner.model.prompt_cache_key == logged.prompt_cache_key
    assert resumed.runner.last_main_request == logged
    assert not logged.is_zero


async def test_seed_dropped_when_the_model_differs(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("one")
    harness.log.close()
    resumed = open_session(resume=harness.session_id, model="other-model")
    assert resumed.runner.last_main_request == LastMainRequest()
    assert load_session(harness.session_dir).last_main_request.backend_model == ("fake-model")


async def test_parent_usage_is_never_restored(open_session: OpenSession) -> None:
    harness = open_session([Reply(["a"], prompt_tokens=500)], stateful=True)
    await harness.driver.submit("one")
    assert harness.runner.state.parent_usage is not None
    harness.log.close()
    resumed = open_session(resume=harness.session_id, stateful=True)
    assert resumed.runner.state.parent_usage is None


async def test_a_resumed_session_keeps_the_date_it_started_with(
    open_session: OpenSession, clock: ManualClock
) -> None:
    harness = open_session()
    await harness.driver.submit("one")
    harness.log.close()
    started = harness.runner.context.session_date
    first = harness.runner.prepare().request.messages
    clock.advance(timedelta(days=2))
    resumed = open_session(resume=harness.session_id)
    assert started is not None and resumed.runner.context.session_date == started
    # The date line, and so the cached prefix, keeps its bytes across the resume.
    prefix = harness.runner.prepare().request.cacheable_prefix_messages
    assert resumed.runner.prepare().request.messages[:prefix] == first[:prefix]


async def test_resume_latest_of_this_project(
    open_session: OpenSession, clock: ManualClock, project: Path, sessions_base: Path
) -> None:
    first = open_session()
    await first.driver.submit("old")
    first.log.close()
    clock.advance(timedelta(minutes=5))
    second = open_session()
    await second.driver.submit("new")
    second.log.close()
    loaded = find_session(project, LATEST, sessions_base)
    assert loaded.session_id == second.session_id
    assert Path(loaded.project_root) == second.runner.project_root
    other = project / "sub"  # a different project with no sessions
    with pytest.raises(SessionNotFoundError, match="no saved session"):
        find_session(other, LATEST, sessions_base)


def test_resume_errors(project: Path, sessions_base: Path) -> None:
    with pytest.raises(ValueError, match=r"'\.\./x'"):
        find_session(project, "../x", sessions_base)
    with pytest.raises(SessionNotFoundError, match="nope"):
        find_session(project, "nope", sessions_base)


def test_a_new_session_gets_a_fresh_id_and_its_own_cache_key(
    open_session: OpenSession, project: Path
) -> None:
    fresh = open_session()
    other = open_session()
    assert fresh.session_id != other.session_id
    assert fresh.runner.lineage.active.messages == () and fresh.loaded is None
    assert fresh.runner.model.prompt_cache_key == f"steiner-{fresh.session_id}"
    assert fresh.runner.last_main_request.is_zero


async def test_resumed_session_continues_the_same_log(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("one")
    harness.log.close()
    resumed = open_session(resume=harness.session_id)
    resumed.driver.set_mode("plan")
    resumed.log.record_mode("plan")
    await resumed.driver.submit("two")
    resumed.log.close()
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage == resumed.runner.lineage
    assert loaded.mode == "plan"
    again = open_session(resume=harness.session_id)
    assert again.runner.mode == "plan"


async def test_a_compactions_sizes_are_mains_estimates_and_come_back_with_it(
    open_session: OpenSession,
) -> None:
    """The summary's and the retained messages' tokens (the lineage browser shows them) are
    main's estimates of those messages, parts of the after figure, and kept by the log."""
    harness = open_session()
    for turn in range(5):
        await harness.driver.submit(f"turn {turn}" + " lorem ipsum dolor" * 40)
    outcome = await harness.driver.compact()
    assert outcome is not None and outcome.applied
    generation = harness.runner.lineage.active
    estimator, model = harness.runner.context.estimator, harness.runner.model.model

    def tokens(messages: list[Message]) -> int:
        return sum(estimator.estimate(model, (to_provider_message(m),)).tokens for m in messages)

    summary = [m for m in generation.messages if m.role == "summary"]
    retained = [m for m in generation.messages if m.role != "summary"][-outcome.retained_count :]
    assert outcome.summary_tokens == tokens(summary) > 0
    assert outcome.retained_tokens == tokens(retained) > 0
    assert outcome.summary_tokens + outcome.retained_tokens < outcome.after_tokens
    harness.log.close()
    resumed = open_session(resume=harness.session_id)
    assert resumed.runner.lineage.active.outcome == generation.outcome


async def test_a_resumed_session_estimates_as_it_did_before_the_resume(
    open_session: OpenSession,
) -> None:
    """The calibration against reported usage is learnt again from the log: the next request's
    estimate (the panel's figure, the trigger's and the fit check's) is the one it was."""
    replies = [
        Reply([f"reply {n}"], prompt_tokens=tokens)
        for n, tokens in enumerate((900, 2_600, 4_100, 5_300))
    ]
    harness = open_session(replies)
    for turn in range(4):
        await harness.driver.submit(f"turn {turn}" + " lorem ipsum dolor" * 40)
    calibration = harness.runner.context.estimator.calibration
    before = harness.runner.preview()
    assert calibration.samples("fake-model") == 4 and calibration.factor("fake-model") != 1.0
    harness.log.close()
    resumed = open_session(resume=harness.session_id)
    again = resumed.runner.context.estimator.calibration
    assert again.factor("fake-model") == pytest.approx(calibration.factor("fake-model"), rel=1e-12)
    assert again.samples("fake-model") == 4
    after = resumed.runner.preview()
    assert (after.estimated_prompt_tokens, after.raw_prompt_tokens) == (
        before.estimated_prompt_tokens,
        before.raw_prompt_tokens,
    )
