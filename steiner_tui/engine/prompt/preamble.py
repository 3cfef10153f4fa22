"""The system preamble: rendered from templates, memoized per session.

The preamble opens every request, so it must be byte-stable for the provider's prompt cache.
``CachedSystemPreamble`` rebuilds it only when one of its inputs changes (override, delegation,
async sub-agents, orchestration level, advisor, LSP, workflow mode, system suffix, sandbox, or
writable mounts). Each optional input renders its own section only when set; an override replaces
the default body but keeps the identity line and the optional sections.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.templates import render_template

__all__ = [
    "DOCUMENTOR_MODE",
    "CachedSystemPreamble",
    "PreambleInputs",
    "render_preamble",
]

DOCUMENTOR_MODE = "documentor"
"""The workflow mode of a delegated documentor child (DelegatedDocumentorWorkflowMode)."""


class PreambleInputs(msgspec.Struct, frozen=True):
    """Everything the preamble depends on; equal inputs give identical bytes."""

    override: str = ""
    delegation_enabled: bool = False
    async_sub_agents: bool = False
    orchestration_level: str = ""
    advisor: bool = False
    lsp: bool = False
    workflow_mode: str = ""
    documentor_write_scope: tuple[str, ...] = ()
    system_suffix: str = ""
    sandbox_enabled: bool = False
    sandbox_writable_mounts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(
            self, "documentor_write_scope", tuple(self.documentor_write_scope)
        )
        msgspec.structs.force_setattr(
            self, "sandbox_writable_mounts", tuple(self.sandbox_writable_mounts)
        )


def _section(name: str, **variables: object) -> str:
    return render_template(name, **variables).strip()


def render_preamble(inputs: PreambleInputs) -> str:
    """Render the preamble text for ``inputs`` (no memoization)."""
    sections = [_section("preamble.md.j2", override=inputs.override.strip())]
    if inputs.delegation_enabled:
        sections.append(
            _section(
                "preamble_delegation.md.j2",
                async_sub_agents=inputs.async_sub_agents,
                orchestration_level=inputs.orchestration_level.strip(),
            )
        )
    if inputs.advisor:
        sections.append(_section("preamble_advisor.md.j2"))
    if inputs.lsp:
        sections.append(_section("preamble_lsp.md.j2"))
    if inputs.workflow_mode.strip():
        sections.append(
            _section(
                "preamble_workflow.md.j2",
                workflow_mode=inputs.workflow_mode.strip(),
                documentor_write_scope=inputs.documentor_write_scope,
            )
        )
    if inputs.sandbox_enabled:
        sections.append(
            _section(
                "preamble_sandbox.md.j2", sandbox_writable_mounts=inputs.sandbox_writable_mounts
            )
        )
    if inputs.system_suffix.strip():
        sections.append(inputs.system_suffix.strip())
    return "\n\n".join(sections)


class CachedSystemPreamble:
    """Memoizes the preamble: renders again only when the inputs differ from the last call.

    One instance lives per interactive session, oneshot phase, exec run or delegated child.
    ``rebuilds`` counts renders, so callers (and tests) can see the memo working.
    """

    def __init__(self, render: Callable[[PreambleInputs], str] = render_preamble) -> None:
        self._render = render
        self._inputs: PreambleInputs | None = None
        self._block: ContextBlock | None = None
        self.rebuilds = 0

    def block(self, inputs: PreambleInputs) -> ContextBlock:
        """The preamble block for ``inputs``, rebuilt only when they changed."""
        if self._block is None or inputs != self._inputs:
            text = self._render(inputs)
            self._block = ContextBlock.of(ContextSource.PREAMBLE, text)
            self._inputs = inputs
            self.rebuilds += 1
        return self._block

    def text(self, inputs: PreambleInputs) -> str:
        """The preamble text for ``inputs`` (see ``block``)."""
        return self.block(inputs).content
