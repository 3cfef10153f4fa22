"""Start-up stays lean: the workbench's imports do not load what only later work needs.

Two stages. Before its first frame, ``steiner-tui`` (``commands/app.py``) loads the
configuration and plans a new session: that must not load the engine, which the workbench opens
after the frame (``app.session_plan``). Opening the session then imports the modules below; code
needed only once a turn runs, a compaction happens, a session is resumed or forked, a template
is rendered or another screen opens is imported at first use. These tests fail when an eager
import brings such a module back onto either path. They check ``sys.modules`` in a fresh
interpreter, never the clock, and likewise that the turn-time classes a few modules re-export
lazily (each costs about a millisecond to create) stay unbound.
"""

from __future__ import annotations

import json
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest

import steiner_tui.agent.delegation as delegation
import steiner_tui.agent.runner as runner
import steiner_tui.engine as engine
import steiner_tui.engine.compaction as compaction
import steiner_tui.engine.events as events
import steiner_tui.engine.provider as provider
import steiner_tui.engine.skills as skills
import steiner_tui.engine.snapshots as snapshots
import steiner_tui.engine.state as state
import steiner_tui.providers.offline as offline
import steiner_tui.sessions as sessions

FIRST_FRAME = """
import os, sys, tempfile
from pathlib import Path
home = tempfile.mkdtemp()
os.environ.update(HOME=home, XDG_CONFIG_HOME=home, XDG_CACHE_HOME=home, XDG_DATA_HOME=home)
from steiner_tui.commands.app import _start
from steiner_tui.app.app import make_app
from steiner_tui.app.session_plan import SessionPlan
assert isinstance(_start(Path(home), None), SessionPlan)
"""
"""What ``commands.app`` does before the app runs, for a new session in an empty project."""

ENGINE = (
    "steiner_tui.agent",
    "steiner_tui.app.controller",
    "steiner_tui.app.session",
    "steiner_tui.app.adapter",
    "steiner_tui.engine.events",
    "steiner_tui.engine.prompt",
    "steiner_tui.engine.skills",
    "steiner_tui.engine.snapshots",
    "steiner_tui.engine.tokens",
    "steiner_tui.providers.offline",
    "steiner_tui.sessions.store",
    "steiner_tui.tools",
)
"""Opened with the session, after the first frame."""

STARTUP_IMPORTS = """
from steiner_tui.app.app import make_app
from steiner_tui.app.controller import SessionController
from steiner_tui.app.gc_tuning import tune_gc_for_ui
from steiner_tui.app.resume_request import ResumeRequest
from steiner_tui.app.session import build_app_session
from steiner_tui.config import load_config
from steiner_tui.sessions import SessionLoadError, SessionNotFoundError
"""

DEFERRED = (
    # jinja2: the first template render (after the first frame).
    "jinja2",
    # The conversation's entries: the first entry shown (a resumed session loads them then).
    "steiner_tui.app.transcript",
    # Turn-time dataclasses (about a millisecond each to create): engine events, the provider's
    # request and stream events, the runner's records of a turn, the snapshot store's chain and
    # the comparison of two snapshots.
    "steiner_tui.agent.run_types",
    # Compaction: the first compaction (history.md rendering included).
    "steiner_tui.engine.compaction.operation",
    "steiner_tui.engine.compaction.stage",
    "steiner_tui.engine.compaction.stage_runner",
    "steiner_tui.engine.compaction.retention",
    "steiner_tui.engine.compaction.summary_request",
    "steiner_tui.engine.compaction.history_render",
    "steiner_tui.engine.compaction.stateful",
    # Sessions: the log parser (resume), fork.
    "steiner_tui.sessions.loader",
    "steiner_tui.sessions.log_parse",
    "steiner_tui.sessions.fork",
    # A running turn: streaming, tool calls, attachments, sub-agents, the offline model's rules.
    "steiner_tui.agent.streaming",
    "steiner_tui.agent.tool_calls",
    "steiner_tui.agent.attachments",
    "steiner_tui.agent.delegation.child",
    "steiner_tui.providers.offline.answers",
    "steiner_tui.providers.offline.summarizer",
    "steiner_tui.tools.walk",
    "steiner_tui.tools.schema",
    # SDK providers, and widgets of entries or of other screens.
    "steiner_tui.providers.anthropic_provider",
    "steiner_tui.providers.openai_chat",
    "steiner_tui.providers.sdk_base",
    "anthropic",
    "openai",
    "steiner_tui.app.widgets.assistant_reply",
    "steiner_tui.app.widgets.reply_markdown",
    "steiner_tui.app.widgets.tool_block",
    "steiner_tui.app.widgets.subagents",
    "steiner_tui.app.screens.lineage",
    "steiner_tui.app.screens.inspector",
    "steiner_tui.app.screens.help",
    "steiner_tui.app.screens.sessions",
    "steiner_tui.app.commands",
    "textual.widgets._data_table",
    "textual.widgets._markdown",
)

LAZY_CLASSES = {
    # Re-exported lazily: bound in the module once first used, never by start-up.
    "steiner_tui.agent.runner": ("PreparedTurn", "RunResult"),
}


def _run_probe(code: str, report: str) -> Any:
    probe = f"{code}\nimport json, sys\nprint(json.dumps({report}))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out)


def _loaded_after(code: str) -> set[str]:
    return set(_run_probe(code, "sorted(sys.modules)"))


def test_first_frame_leaves_the_engine_unloaded() -> None:
    loaded = _loaded_after(FIRST_FRAME)
    assert "steiner_tui.app.screens.main" in loaded  # the probe really imported the app
    assert sorted(name for name in ENGINE if name in loaded) == []
    assert sorted(name for name in DEFERRED if name in loaded) == []


def test_opening_the_session_loads_the_engine() -> None:
    loaded = _loaded_after(STARTUP_IMPORTS)  # the guard above would pass on a wrong name
    assert sorted(name for name in ENGINE if name in loaded) == sorted(ENGINE)


def test_startup_imports_leave_later_work_unloaded() -> None:
    loaded = _loaded_after(STARTUP_IMPORTS)
    assert "steiner_tui.app.screens.main" in loaded  # the probe really imported the app
    assert sorted(name for name in DEFERRED if name in loaded) == []


def test_startup_imports_bind_no_turn_time_class() -> None:
    report = "{m: sorted(set(vars(sys.modules[m])) & set(names)) for m, names in LAZY.items()}"
    bound = _run_probe(f"LAZY = {LAZY_CLASSES!r}\n{STARTUP_IMPORTS}", report)
    assert bound == {module: [] for module in LAZY_CLASSES}


def test_importing_a_leaf_module_does_not_load_its_package_exports() -> None:
    loaded = _loaded_after("import steiner_tui.engine.messages")
    assert "steiner_tui.engine.compaction.lineage" not in loaded
    assert "steiner_tui.engine.skills.delta" not in loaded


LAZY_EXPORTERS = [engine, compaction, skills, state, sessions, offline, delegation]
LAZY_EXPORTERS += [events, provider, snapshots, runner]  # modules, re-exporting turn-time classes


@pytest.mark.parametrize("package", LAZY_EXPORTERS)
def test_lazy_packages_still_export_every_name(package: ModuleType) -> None:
    names: list[str] = vars(package)["__all__"]
    for name in names:
        assert hasattr(package, name), name
    assert set(names) <= set(dir(package))
    with pytest.raises(AttributeError):
        _ = package.no_such_name


def test_lazy_export_is_the_submodule_object() -> None:
    from steiner_tui.engine.compaction.lineage import ConversationLineage
    from steiner_tui.engine.events import TextDelta
    from steiner_tui.engine.provider import ChatRequest
    from steiner_tui.sessions.errors import SessionLoadError
    from steiner_tui.sessions.loader import SessionLoadError as LoaderSessionLoadError

    assert engine.ConversationLineage is ConversationLineage
    assert engine.ChatRequest is provider.ChatRequest is ChatRequest
    assert events.TextDelta is TextDelta
    assert sessions.SessionLoadError is SessionLoadError is LoaderSessionLoadError
