"""No import circles between ``steiner_tui`` modules.

The graph comes from ``grimp`` (import-linter's graph builder): every ``import`` statement of the
package, at module level, inside functions and under ``if TYPE_CHECKING:`` alike, so a circle
cannot hide behind a deferred import. A circle is reported as the modules it runs through.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

import grimp

Graph = Mapping[str, Set[str]]


def import_graph(package: str = "steiner_tui") -> dict[str, set[str]]:
    """Module -> the package modules it imports directly."""
    graph = grimp.build_graph(package, include_external_packages=False)
    return {
        module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }


def import_cycles(graph: Graph) -> list[list[str]]:
    """One circle per strongly connected group of modules (Tarjan), each closed on its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.get(module, ())):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in graph.get(module, ()):
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_circle(graph, group) for group in groups]


def _circle(graph: Graph, group: list[str]) -> list[str]:
    """A shortest circle through the group's first module, as a path that ends where it began."""
    members = set(group)
    start = group[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for imported in sorted(graph.get(module, set()) & members):
                if imported == start:
                    return [*paths[module], start]
                if imported not in paths:
                    paths[imported] = [*paths[module], imported]
                    following.append(imported)
        frontier = following
    raise AssertionError(f"no circle through {start}")  # a strongly connected group has one


def test_the_package_has_no_import_circle() -> None:
    cycles = import_cycles(import_graph())
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_a_circle_is_found_and_named() -> None:
    # The circles the package had before they were designed away, one of them via a third module.
    graph = {
        "agent.compaction_driver": {"agent.runner"},
        "agent.runner": {"agent.compaction_driver", "engine.events"},
        "engine.events": {"engine.event_types"},
        "engine.event_types": {"engine.events"},
        "engine.snapshots": {"engine.snapshot_chain", "engine.snapshot_compare"},
        "engine.snapshot_chain": {"engine.snapshots"},
        "engine.snapshot_compare": {"engine.snapshots"},
        "app.session": {"app.session_plan"},
        "app.session_plan": {"app.session"},
        "app.commands": {"app.screens.main"},
        "app.screens.main": {"app.commands"},
        "leaf": set(),
    }
    cycles = import_cycles(graph)
    assert sorted(cycles) == [
        ["agent.compaction_driver", "agent.runner", "agent.compaction_driver"],
        ["app.commands", "app.screens.main", "app.commands"],
        ["app.session", "app.session_plan", "app.session"],
        ["engine.event_types", "engine.events", "engine.event_types"],
        ["engine.snapshot_chain", "engine.snapshots", "engine.snapshot_chain"],
    ]
    assert import_cycles({"a": {"a"}}) == [["a", "a"]]
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
