"""The import ranking is the engine's ranking (``engine.costs.rank_request``) over results."""

from __future__ import annotations

from steiner_tui.importers.ranking import rank_costs


def test_results_group_by_tool_and_target_largest_first() -> None:
    rows = rank_costs(
        [
            ("Read", "/p/a.py", 300),
            ("Bash", "pytest -q", 900),
            ("Read", "/p/a.py", 700),
            ("Bash", "ls", 10),
            ("Grep", "", 5),
        ]
    )
    assert [(r.tool, r.target, r.bytes, r.count) for r in rows] == [
        ("Read", "/p/a.py", 1000, 2),
        ("Bash", "pytest -q", 900, 1),
        ("Bash", "ls", 10, 1),
        ("Grep", "", 5, 1),
    ]


def test_long_commands_that_share_a_prefix_stay_apart_and_the_limit_holds() -> None:
    base = "python -c 'print(1)' && echo " + "x" * 60
    rows = rank_costs([("exec_command", base + str(i), 10 + i) for i in range(30)], limit=5)
    assert len(rows) == 5
    assert [r.target for r in rows] == [base + str(i) for i in (29, 28, 27, 26, 25)]
