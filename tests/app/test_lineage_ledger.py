"""The lineage browser's detail shows the artifact ledger per generation, with what changed."""

from __future__ import annotations

from steiner_tui.app.widgets.lineage_view import build_generation_view
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import CompactionOutcome
from steiner_tui.engine.messages import Message
from steiner_tui.engine.state.artifacts import build_ledger
from tests.engine.test_artifacts import _session


def test_the_lineage_view_shows_the_ledger_and_what_changed() -> None:
    first = build_ledger(_session()[:7])
    second = build_ledger(_session())
    outcome = CompactionOutcome(applied=True, stage_count=1, modes=("normal",), notes=("n1",))
    lineage = ConversationLineage.start(_session())
    for ledger in (first, second):
        summary = f"Summary.\n\n{ledger.render()}"
        lineage = lineage.advance((Message("summary", summary),), summary, outcome, None)
    view = build_generation_view(lineage, 2)
    assert view.ledger == tuple(entry.line() for entry in second.entries)
    assert "edited -> file `util.py`: reverted — by `git checkout -- util.py`" in (
        view.ledger_changes
    )
    assert view.heading.endswith("· n1")
