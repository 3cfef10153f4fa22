"""Memory retained by the snapshot store vs the distinct messages it holds.

Stores 500 request snapshots of a conversation that grows by one turn per request (user
question, assistant tool call, tool result, assistant answer) behind a fixed block prefix, then
measures retained bytes with a deep ``sys.getsizeof`` walk that counts every distinct object
once. The design deep-copies each request into its event and again into the store; the naive
figures are what 500 independent copies would retain. Copying 500 growing snapshots for real
would take far too much memory, so they are computed rather than measured: "full copies" sums
each snapshot's deep size alone (every byte copied, as a serialized copy would be). A real
``copy.deepcopy`` of the first 40 snapshots is measured for comparison; it retains less than
full copies because CPython's deepcopy shares strings and all-immutable tuples.

Run: ``uv run python benchmarks/bench_snapshots.py``. Target: store/distinct < 1.5x.
"""

from __future__ import annotations

import copy
import gc
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import FunctionType, ModuleType

import msgspec

from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.prompt.blocks import ContextBlock, render_blocks
from steiner_tui.engine.prompt.preamble import PreambleInputs, render_preamble
from steiner_tui.engine.snapshots import SnapshotStore, build_request_snapshot
from steiner_tui.engine.tooldefs import ToolDefinition

REQUESTS = 500
CHECK_SAMPLE = 40


@dataclass(frozen=True)
class Estimate:
    tokens: int
    raw_tokens: int
    strategy: str = "heuristic"
    confidence: str = "low"


def deep_size(roots: Iterable[object], *, skip_str: bool = False) -> int:
    """Bytes of every object reachable from ``roots``, each distinct object counted once
    (strings left out when ``skip_str``)."""
    seen: set[int] = set()
    total = 0
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, ModuleType, FunctionType)):
            continue
        seen.add(id(obj))
        if skip_str and isinstance(obj, str):
            continue
        total += sys.getsizeof(obj)
        stack.extend(referents(obj))
    return total


def referents(obj: object) -> list[object]:
    """What ``obj`` refers to. The collector lists it for the objects it tracks; a struct made
    with ``gc=False`` (a message, a tool call) is not tracked, so its slots are read instead:
    its fields, its cached hash and the derived values it caches."""
    if not isinstance(obj, msgspec.Struct) or type(obj).__struct_config__.gc:
        return gc.get_referents(obj)
    names = {n for klass in type(obj).__mro__ for n in vars(klass).get("__slots__", ())}
    return [
        getattr(obj, name) for name in names - {"__dict__", "__weakref__"} if hasattr(obj, name)
    ]


def strings_size(roots: Iterable[object]) -> int:
    """Bytes of the distinct strings reachable from ``roots``."""
    return deep_size(roots) - deep_size(roots, skip_str=True)


def turn(n: int) -> list[Message]:
    path = f"src/module_{n % 37}.py"
    return [
        Message("user", f"Turn {n}: please look at {path} and fix the failing check. " * 5, turn=n),
        Message(
            "assistant",
            f"Reading {path} first.",
            tool_calls=(ToolCall(f"call-{n}", "read", {"path": path, "offset": 1, "limit": 200}),),
            turn=n,
        ),
        Message("tool", f"{n:>6}| line of source code in {path}\n" * 50, tool_call_id=f"call-{n}"),
        Message(
            "assistant", f"Fixed the off-by-one in {path}; the check passes now. " * 10, turn=n
        ),
    ]


def main() -> None:
    blocks = (
        ContextBlock.of("preamble", render_preamble(PreambleInputs(delegation_enabled=True))),
        ContextBlock.of("project_agents_md", "Use tabs. Run make check before finishing.\n" * 20),
        ContextBlock.of("session_date", "Current date: 2026-09-13 (BST, UTC+01:00), recorded."),
    )
    tools = tuple(
        ToolDefinition(name, f"The {name} tool.", {"type": "object", "properties": {}})
        for name in ("bash", "edit", "glob", "grep", "read", "write")
    )
    store = SnapshotStore()
    conversation: list[Message] = []
    snapshots: list[RequestSnapshot] = []
    for i in range(REQUESTS):
        conversation.extend(turn(i))
        # The assembler renders block messages afresh each request: equal values, new objects.
        block_messages = render_blocks(blocks)
        event = build_request_snapshot(
            request_id=f"req-{i}",
            index=i,
            model="gpt-4o",
            provider="openai",
            time=datetime(2026, 9, 13, tzinfo=UTC) + timedelta(seconds=i),
            messages=[*block_messages, *conversation],
            blocks=blocks,
            block_message_count=len(block_messages),
            tools=tools,
            max_tokens=4096,
            estimate=Estimate(1000 + i, 900 + i),
        )
        store.store(event)
        if i < CHECK_SAMPLE:
            snapshots.append(event)

    distinct: dict[int, Message] = {}
    for s in store.all():
        for m in s.messages:
            distinct.setdefault(id(m), m)
    distinct_bytes = deep_size(distinct.values())
    store_bytes = deep_size([store])

    # Naive: every snapshot an independent copy of all it holds, text included (computed).
    naive_full = sum(deep_size([s]) for s in store.all())

    # Measured on a sample: real copy.deepcopy of the first snapshots vs a store of the same.
    sample_store = SnapshotStore()
    for event in snapshots:
        sample_store.store(event)
    copies = [copy.deepcopy(s) for s in snapshots]
    sample_copies = (
        deep_size([*copies, *snapshots]) - deep_size(snapshots) + strings_size(snapshots)
    )
    sample_full = sum(deep_size([s]) for s in snapshots)
    sample_store_bytes = deep_size([sample_store])

    print(f"requests stored:                 {REQUESTS}")
    print(f"distinct messages:               {len(distinct)} ({distinct_bytes:,} bytes)")
    print(f"store retained bytes:            {store_bytes:,}")
    print(f"store / distinct messages:       {store_bytes / distinct_bytes:.2f}x (target < 1.5x)")
    print(f"naive, full copies (computed):   {naive_full:,} bytes")
    print(f"  / distinct messages:           {naive_full / distinct_bytes:.1f}x")
    print(f"  / store:                       {naive_full / store_bytes:.1f}x")
    print(f"sample of the first {CHECK_SAMPLE} requests:")
    print(f"  store:                         {sample_store_bytes:,} bytes")
    print(
        f"  real copy.deepcopy (measured): {sample_copies:,} bytes "
        f"({sample_copies / sample_store_bytes:.1f}x the store; CPython shares strings)"
    )
    print(
        f"  full copies (computed):        {sample_full:,} bytes "
        f"({sample_full / sample_store_bytes:.1f}x the store)"
    )


if __name__ == "__main__":
    main()
