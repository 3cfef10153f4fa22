"""assemble(): the seven-step plan end to end, budgets, AGENTS.md bypass, projection."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from steiner_tui.engine.events import EventSink, ListSink
from steiner_tui.engine.messages import INTERRUPTION_NOTE, Message
from steiner_tui.engine.prompt.assembler import AssembledPrompt, AssemblyOptions, assemble
from steiner_tui.engine.prompt.budget import AssemblyPolicy
from steiner_tui.engine.prompt.files import LocalFileReader
from steiner_tui.engine.prompt.preamble import CachedSystemPreamble, PreambleInputs
from steiner_tui.engine.prompt.project_context import ProjectContextSpec
from steiner_tui.engine.prompt.static_cache import StaticContextCache
from steiner_tui.engine.skills.discovery import SkillRoot
from steiner_tui.engine.skills.model import Skill

DATE = datetime(2026, 9, 13, 10, 0, tzinfo=ZoneInfo("Europe/London"))
DATE_LINE = "Current date: 2026-09-13 (BST, UTC+01:00), recorded when this session started."


def fixed_preamble() -> CachedSystemPreamble:
    return CachedSystemPreamble(
        lambda inputs: f"PREAMBLE{'+D' if inputs.delegation_enabled else ''}"
    )


def one_skill(roots: Sequence[SkillRoot], sink: EventSink) -> Sequence[Skill]:
    return (Skill("tdd", "", "Write the test first.", Path("/s/tdd/SKILL.md"), Path("/s"), 21),)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "AGENTS.md").write_text("project rules", encoding="utf-8")
    (root / "a.md").write_text("A" * 30, encoding="utf-8")
    (root / "b.md").write_text("B" * 30, encoding="utf-8")
    (root / "c.md").write_text("C" * 30, encoding="utf-8")
    return root


def run(
    options: AssemblyOptions,
    conversation: Sequence[Message] = (),
    *,
    cache: StaticContextCache | None = None,
    preamble: CachedSystemPreamble | None = None,
    session_date: datetime | None = DATE,
) -> AssembledPrompt:
    return assemble(
        options,
        conversation,
        cache=cache or StaticContextCache(LocalFileReader(), one_skill),
        preamble=preamble or fixed_preamble(),
        session_date=session_date,
        sink=ListSink(),
    )


def test_full_plan_in_order(tmp_path: Path, project: Path) -> None:
    global_agents = tmp_path / "AGENTS.md"
    global_agents.write_text("global rules", encoding="utf-8")
    options = AssemblyOptions(
        project_root=project,
        global_agents_path=global_agents,
        project_context=ProjectContextSpec(files=("a.md",)),
        skill_roots=(SkillRoot(Path("/s")),),
        skill_names=("tdd",),
        phase_prompt="  Phase one: plan.  ",
    )
    conversation = [Message("user", "hi"), Message("assistant", "hello")]
    prompt = run(options, conversation)
    assert [b.source for b in prompt.blocks] == [
        "preamble",
        "global_agents_md",
        "project_agents_md",
        "project_context",
        "skill",
        "skill",
        "phase_prompt",
        "session_date",
    ]
    skill_text = prompt.blocks[4].content + "\n" + prompt.blocks[5].content
    assert prompt.messages == (
        Message("system", "PREAMBLE\n\nglobal rules\n\nproject rules"),
        Message("user", "A" * 30 + "\n" + skill_text),
        Message("system", "Phase one: plan."),
        Message("user", DATE_LINE),
        *conversation,
    )
    assert prompt.block_message_count == 4
    assert prompt.messages[prompt.block_message_count :] == tuple(conversation)


def test_session_date_merges_into_project_context_without_phase(project: Path) -> None:
    options = AssemblyOptions(
        project_root=project, project_context=ProjectContextSpec(files=("a.md",))
    )
    prompt = run(options)
    assert prompt.messages == (
        Message("system", "PREAMBLE\n\nproject rules"),
        Message("user", "A" * 30 + "\n" + DATE_LINE),
    )


def test_no_date_no_date_block(project: Path) -> None:
    prompt = run(AssemblyOptions(project_root=project), session_date=None)
    assert [b.source for b in prompt.blocks] == ["preamble", "project_agents_md"]
    assert prompt.block_message_count == 1


def test_project_context_budget_is_shared_and_flags_truncation(project: Path) -> None:
    options = AssemblyOptions(
        project_root=project,
        policy=AssemblyPolicy({"project_context": 45}),
        project_context=ProjectContextSpec(files=("a.md", "b.md", "c.md")),
    )
    prompt = run(options, session_date=None)
    context = [b for b in prompt.blocks if b.source == "project_context"]
    assert [(b.content, b.truncated, b.path) for b in context] == [
        ("A" * 30, False, str(project / "a.md")),
        ("B" * 15, True, str(project / "b.md")),
    ]


def test_project_budget_option_overrides_the_policy(project: Path) -> None:
    options = AssemblyOptions(
        project_root=project,
        project_context=ProjectContextSpec(files=("a.md", "b.md"), budget_bytes=10),
    )
    context = [b for b in run(options).blocks if b.source == "project_context"]
    assert [(b.content, b.truncated) for b in context] == [("A" * 10, True)]


def test_agents_md_is_never_truncated(tmp_path: Path, project: Path) -> None:
    big = "rule\n" * 10_000
    (project / "AGENTS.md").write_text(big, encoding="utf-8")
    options = AssemblyOptions(
        project_root=project,
        policy=AssemblyPolicy({"project_context": 1, "skill": 1}),
    )
    prompt = run(options)
    [agents] = [b for b in prompt.blocks if b.source == "project_agents_md"]
    assert agents.content == big
    assert not agents.truncated
    assert big in prompt.messages[0].content


def test_skill_budget_cuts_static_skills(project: Path) -> None:
    options = AssemblyOptions(
        project_root=project,
        skill_roots=(SkillRoot(Path("/s")),),
        skill_names=("tdd",),
        policy=AssemblyPolicy({"skill": 20}),
    )
    skills = [b for b in run(options).blocks if b.source == "skill"]
    assert len(skills) == 1
    assert skills[0].truncated
    assert skills[0].byte_size <= 20


def test_interactive_assembly_has_no_skill_blocks(project: Path) -> None:
    options = AssemblyOptions(project_root=project, skill_roots=(SkillRoot(Path("/s")),))
    assert "skill" not in [b.source for b in run(options).blocks]


def test_conversation_is_projected_for_the_provider(project: Path) -> None:
    conversation = [
        Message("summary", "what happened"),
        Message("user", "go on"),
        Message("assistant", "partial", incomplete=True),
    ]
    prompt = run(AssemblyOptions(project_root=project), conversation)
    tail = prompt.messages[prompt.block_message_count :]
    assert tail[0] == Message("system", "what happened")
    assert tail[1] is conversation[1]
    assert tail[2].content == "partial" + INTERRUPTION_NOTE


def test_dry_run_is_the_prefix_of_the_next_request(project: Path) -> None:
    cache = StaticContextCache(LocalFileReader(), one_skill)
    preamble = fixed_preamble()
    options = AssemblyOptions(project_root=project, scope="s1")
    dry = run(options, cache=cache, preamble=preamble)
    real = run(options, [Message("user", "hi")], cache=cache, preamble=preamble)
    assert real.messages[: dry.block_message_count] == dry.messages
    assert real.blocks == dry.blocks
    assert preamble.rebuilds == 1
    assert cache.loads("agents") == 1


def test_scope_change_reloads_static_sources(project: Path) -> None:
    cache = StaticContextCache(LocalFileReader(), one_skill)
    preamble = fixed_preamble()
    run(AssemblyOptions(project_root=project, scope="s1"), cache=cache, preamble=preamble)
    run(AssemblyOptions(project_root=project, scope="s2"), cache=cache, preamble=preamble)
    assert cache.loads("agents") == 2


def test_prompt_and_block_bytes(project: Path) -> None:
    prompt = run(AssemblyOptions(project_root=project), [Message("user", "héllo")])
    assert prompt.blocks_bytes == sum(len(b.content.encode()) for b in prompt.blocks)
    assert prompt.prompt_bytes == sum(
        len(m.role.encode()) + len(m.content.encode()) for m in prompt.messages
    )


def test_preamble_inputs_reach_the_preamble(project: Path) -> None:
    options = AssemblyOptions(
        project_root=project, preamble=PreambleInputs(delegation_enabled=True)
    )
    assert run(options).messages[0].content.startswith("PREAMBLE+D")


def test_escaping_project_context_path_fails_the_assembly(project: Path) -> None:
    options = AssemblyOptions(
        project_root=project, project_context=ProjectContextSpec(files=("../x.md",))
    )
    with pytest.raises(ValueError, match="escapes project root"):
        run(options)
