"""The artifact ledger: read from the tool calls, latest state wins, carried by every summary."""

from __future__ import annotations

from steiner_tui.engine.compaction.host import SummaryResponse
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import compact_with_lineage
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.artifacts import (
    LEDGER_HEADING,
    ArtifactLedger,
    build_ledger,
    ledger_changes,
    strip_ledger,
)
from tests.engine.compaction.fakes import FakeHost, heavy_tail_conversation, make_env, said


def _call(n: int, name: str, result: str, **args: object) -> list[Message]:
    call = ToolCall(f"c{n}", name, dict(args))
    return [
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", result, tool_call_id=f"c{n}"),
    ]


def _session() -> list[Message]:
    return [
        Message("user", "Add rounding.\nTODO: document the rounding rules in docs/money.md"),
        *_call(
            1, "write", "Wrote 40 bytes to money.py (new file).", path="money.py", content="a\nb\n"
        ),
        *_call(2, "edit", "Edited money.py.", path="money.py", old_string="a", new_string="x\ny"),
        *_call(3, "edit", "Edited util.py.", path="util.py", old_string="f()", new_string="g()"),
        *_call(4, "bash", "", command="git checkout -- util.py"),
        *_call(5, "bash", "ok\n[exit code: 0]", command="rm old.py"),
        *_call(
            6,
            "bash",
            "=== RUN TestRound\n--- FAIL: TestRound (0.00s)\n    round_test.go:9: got 1.0\n"
            "FAIL\n=====\n[exit code: 1]",
            command="go test ./...",
        ),
        Message("user", "We decided to use floats because they are simpler."),
        Message(
            "user", "Scrap that: we decided to use Decimal instead of floats because of rounding."
        ),
        *_call(7, "bash", "ok  money 0.01s\n[exit code: 0]", command="go test ./..."),
        Message("assistant", "done: document the rounding rules"),
    ]


def test_latest_state_wins_and_superseded_entries_are_marked() -> None:
    ledger = build_ledger(_session())
    lines = {(e.kind, e.key): e for e in ledger.entries}
    money = lines[("file", "money.py")]
    assert money.state == "created" and money.detail == "+2 -1 lines: 'a' -> 'x / y'"
    assert lines[("file", "util.py")].state == "reverted"
    assert lines[("file", "old.py")].state == "deleted"
    go = lines[("command", "go test ./...")]
    assert (go.state, go.detail) == ("exit 0", "")  # failed, then passed: passing now
    todo = lines[("todo", "document the rounding rules in docs/money.md")]
    assert todo.state == "done"
    decisions = ledger.current("decision")
    assert [d.key for d in decisions] == ["use Decimal instead of floats"]
    assert decisions[0].detail == "because of rounding"
    assert lines[("decision", "use floats")].state == "superseded"


def test_a_failing_command_keeps_its_distinct_error_line() -> None:
    ledger = build_ledger(_session()[:14])
    go = next(e for e in ledger.entries if e.kind == "command" and e.key == "go test ./...")
    assert (go.state, go.detail) == ("exit 1", "--- FAIL: TestRound (0.00s)")


def test_render_parse_and_strip() -> None:
    ledger = build_ledger(_session())
    text = f"## 1. Task\n- rounding\n\n{ledger.render()}"
    assert ArtifactLedger.parse(text) == ledger
    assert strip_ledger(text) == "## 1. Task\n- rounding"
    later = build_ledger([Message("user", "TODO: wire the exporter")], ledger)
    assert ledger_changes(ledger, later) == ("new: todo `wire the exporter`: open",)


async def test_every_stage_carries_the_ledger_the_emergency_one_included() -> None:
    messages = [*_session(), *heavy_tail_conversation()]
    host = FakeHost([SummaryResponse(said("Normal")), SummaryResponse(said("Emergency"))])
    result = await compact_with_lineage(ConversationLineage.start(messages), make_env(host))
    assert result.outcome.modes == ("normal", "emergency")
    summary = result.lineage.active.summary
    assert summary.startswith("Emergency") and LEDGER_HEADING in summary
    assert ArtifactLedger.parse(summary) == build_ledger(_session())


def test_work_put_off_is_an_open_todo() -> None:
    ledger = build_ledger(
        [
            Message("user", "Not now, but later we should cache the rates. Thanks."),
            Message("user", "The logging cleanup goes in a separate PR."),
            Message("user", "Looks fine."),
        ]
    )
    assert [(e.key, e.state) for e in ledger.current("todo")] == [
        ("Not now, but later we should cache the rates", "open"),
        ("The logging cleanup goes in a separate PR", "open"),
    ]


def test_an_edit_says_which_names_it_adds_and_removes_and_edits_add_up() -> None:
    first = _call(
        1, "edit", "ok", path="app.py", old_string="x = load()", new_string="x = fetch_all(cache)"
    )
    second = _call(
        2,
        "edit",
        "ok",
        path="app.py",
        old_string="def run():",
        new_string="async def run_forever():\n    pass",
    )
    ledger = build_ledger([*first, *second])
    (entry,) = ledger.entries
    assert entry.detail == (
        "+3 -2 lines: adds fetch_all, cache and removes load; adds run_forever, async, pass "
        "and removes run"
    )
    # Carried through a summary, the next compaction adds to it rather than starting over.
    third = _call(3, "edit", "ok", path="app.py", old_string="pass", new_string="await tick()")
    (later,) = build_ledger(third, ledger).entries
    assert later.detail.startswith("+4 -3 lines: adds fetch_all") and "tick" in later.detail


def test_a_reverse_edit_or_a_chained_restore_reverts_and_rm_in_a_chain_deletes() -> None:
    forth = _call(1, "edit", "ok", path="cli.go", old_string="v := 1", new_string="v := 2")
    back = _call(2, "edit", "ok", path="cli.go", old_string="v := 2", new_string="v := 1")
    chained = _call(
        3,
        "bash",
        "[exit code: 0]",
        command="git restore --source=HEAD -- ui.ts && rm -f old.css; git checkout HEAD -- b.md",
    )
    again = _call(4, "edit", "ok", path="b.md", old_string="# B", new_string="# Bee")
    ledger = build_ledger([*forth, *back, *chained])
    states = {e.key: e.state for e in ledger.entries if e.kind == "file"}
    assert states == {
        "cli.go": "reverted",
        "ui.ts": "reverted",
        "old.css": "deleted",
        "b.md": "reverted",
    }
    edited = build_ledger(again, ledger).entries[-1]
    assert edited.state == "edited" and "an earlier edit was reverted" in edited.detail


def test_saying_that_item_is_finished_closes_the_todo_it_names() -> None:
    ledger = build_ledger(
        [
            Message(
                "user",
                "TODO: bump the version in setup.cfg.\nTODO: write a migration guide for v3.",
            ),
            Message("assistant", "The v3 migration guide is written now, which closes that TODO."),
        ]
    )
    assert {e.key: e.state for e in ledger.current("todo")} == {
        "bump the version in setup.cfg.": "open",
        "write a migration guide for v3.": "done",
    }


def test_choices_said_many_ways_and_a_reversal_supersedes_the_one_it_names() -> None:
    ledger = build_ledger(
        [
            Message("user", "Let's look at the cache first."),  # looking around is no choice
            Message("user", "Let's store sessions in Postgres, since it is already deployed."),
            Message("user", "Log to a plain file for now, the collector is not ready."),
            Message(
                "user",
                "About the log file: the collector shipped today, so switch to `journald` output.",
            ),
        ]
    )
    entries = {e.key: (e.state, e.detail) for e in ledger.entries}
    assert entries == {
        "store sessions in Postgres": ("current", "because it is already deployed"),
        "Log to a plain file": ("superseded", "because the collector is not ready"),
        "switch to 'journald' output": ("current", "because the collector shipped today"),
    }
    assert ArtifactLedger.parse(ledger.render()) == ledger  # a backtick in a key survives
