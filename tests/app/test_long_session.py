"""Issue 14's acceptance in the workbench: a 340 KB read on the offline model, then five more
messages, each answered; nothing ends in an error."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, notices, send


def _big_markdown(path: Path, size: int = 340_000) -> None:
    parts = ["# Big document\n"]
    section = 0
    while sum(map(len, parts)) < size:
        section += 1
        parts.append(f"\n## Section {section}: values and their display\n\n")
        parts.append("This section explains how values are stored and shown. " * 6 + "\n")
        if section % 25 == 0:
            parts.append("Rounding: amounts round half away from zero to two decimals.\n")
    path.write_text("".join(parts), encoding="utf-8")


async def test_a_huge_read_then_five_more_messages_all_answered(
    app_for: AppFactory, project: Path
) -> None:
    _big_markdown(project / "docs_big.md")
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        runner = app.session.driver.runner
        texts = ["read docs_big.md", "what did that file say about rounding?"]
        texts += ["read docs_big.md", "and the sections?", "read docs_big.md", "thanks"]
        for turn, text in enumerate(texts, start=1):
            await send(pilot, text)
            await finish(pilot)
            # Compaction may have shortened the conversation: the turn's reply is last.
            last = runner.conversation[-1]
            assert (last.role, last.turn) == ("assistant", turn), text
            assert last.content and not last.incomplete
        assert runner.prepare().fit.fits
        assert runner.preview().fits
    assert [n for n in notices(messages) if "exceeds" in n or "error" in n.lower()] == []
