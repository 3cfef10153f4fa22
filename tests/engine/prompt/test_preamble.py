"""The system preamble: sections per input, override, memoization."""

from __future__ import annotations

import msgspec

from steiner_tui.engine.prompt.preamble import (
    CachedSystemPreamble,
    PreambleInputs,
    render_preamble,
)

IDENTITY = "You are Steiner, a coding agent"


def test_default_preamble_has_the_core_sections_only() -> None:
    text = render_preamble(PreambleInputs())
    assert text.startswith(IDENTITY)
    for heading in ("## Using tools", "## Editing discipline", "## Verification"):
        assert heading in text
    for optional in ("## Delegation", "## Advisor", "## Language server", "## Sandbox"):
        assert optional not in text
    assert "## Workflow" not in text
    assert not text.endswith("\n")
    assert "\n\n\n" not in text
    assert 40 <= len(text.splitlines()) <= 80


def test_override_replaces_the_default_body() -> None:
    text = render_preamble(PreambleInputs(override="  Only answer in haiku.\n"))
    assert text.startswith(IDENTITY)
    assert text.endswith("Only answer in haiku.")
    assert "## Editing discipline" not in text


def test_each_input_renders_its_own_section() -> None:
    base = render_preamble(PreambleInputs())
    cases = {
        "## Delegation": PreambleInputs(delegation_enabled=True),
        "## Advisor": PreambleInputs(advisor=True),
        "## Language server": PreambleInputs(lsp=True),
        "## Workflow: plan mode": PreambleInputs(workflow_mode="plan"),
        "## Workflow: build mode": PreambleInputs(workflow_mode="build"),
        "## Sandbox": PreambleInputs(sandbox_enabled=True),
    }
    for heading, inputs in cases.items():
        text = render_preamble(inputs)
        assert heading in text, heading
        assert text.startswith(base), heading


def test_delegation_options_only_with_delegation() -> None:
    off = render_preamble(PreambleInputs(async_sub_agents=True, orchestration_level="high"))
    assert off == render_preamble(PreambleInputs())
    on = render_preamble(
        PreambleInputs(delegation_enabled=True, async_sub_agents=True, orchestration_level="high")
    )
    assert "asynchronously" in on
    assert "Orchestration level: high." in on
    assert "asynchronously" not in render_preamble(PreambleInputs(delegation_enabled=True))


def test_documentor_child_renders_duties_and_write_scope() -> None:
    text = render_preamble(
        PreambleInputs(workflow_mode="documentor", documentor_write_scope=("docs/", "README.md"))
    )
    assert "## Workflow: documentor" in text
    assert "Your duties:" in text
    assert "write scope:\n- `docs/`\n- `README.md`\nEverything else is read-only" in text
    unscoped = render_preamble(PreambleInputs(workflow_mode="documentor"))
    assert "You have no write scope" in unscoped


def test_sandbox_lists_writable_mounts() -> None:
    text = render_preamble(
        PreambleInputs(sandbox_enabled=True, sandbox_writable_mounts=("/tmp", "/work"))
    )
    assert "Writable locations:\n- `/tmp`\n- `/work`\n" in text


def test_system_suffix_comes_last() -> None:
    text = render_preamble(PreambleInputs(system_suffix="House rule: tabs.", lsp=True))
    assert text.endswith("\n\nHouse rule: tabs.")


def test_cached_preamble_rebuilds_only_when_an_input_changes() -> None:
    cache = CachedSystemPreamble()
    inputs = PreambleInputs(delegation_enabled=True)
    first = cache.block(inputs)
    assert first.source == "preamble"
    assert first.role == "system"
    assert cache.block(PreambleInputs(delegation_enabled=True)) is first
    assert cache.rebuilds == 1
    changes = {
        "override": "x",
        "delegation_enabled": False,
        "async_sub_agents": True,
        "orchestration_level": "low",
        "advisor": True,
        "lsp": True,
        "workflow_mode": "plan",
        "documentor_write_scope": ("docs/",),
        "system_suffix": "s",
        "sandbox_enabled": True,
        "sandbox_writable_mounts": ("/tmp",),
    }
    assert set(changes) == set(PreambleInputs.__struct_fields__)
    expected = 1
    for name, value in changes.items():
        changed = msgspec.structs.replace(inputs, **{name: value})
        cache.block(changed)
        expected += 1
        assert cache.rebuilds == expected, name
        cache.block(changed)
        assert cache.rebuilds == expected, name


def test_cached_preamble_uses_the_injected_renderer() -> None:
    calls: list[PreambleInputs] = []

    def render(inputs: PreambleInputs) -> str:
        calls.append(inputs)
        return "fixed"

    cache = CachedSystemPreamble(render)
    assert cache.text(PreambleInputs()) == "fixed"
    assert cache.text(PreambleInputs()) == "fixed"
    assert len(calls) == 1
