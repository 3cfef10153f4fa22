"""FanoutSink: every sink gets what it takes, in order, and only that when it says so."""

from __future__ import annotations

from typing import ClassVar

from steiner_tui.engine.events import (
    EngineEvent,
    FanoutSink,
    ListSink,
    TextDelta,
    ToolCallFinished,
    WarningEvent,
)
from steiner_tui.engine.messages import ToolCall


class _Other(EngineEvent, frozen=True):
    """An event no choosy sink names."""


class _Subclassed(WarningEvent, frozen=True):
    """A subclass of an event a sink takes: it takes this one too."""


class _Choosy(ListSink):
    accepts: ClassVar[tuple[type[EngineEvent], ...]] = (WarningEvent, ToolCallFinished)


def test_a_sink_naming_its_events_gets_only_those_and_the_others_get_everything() -> None:
    everything, choosy, order = ListSink(), _Choosy(), ListSink()
    fanout = FanoutSink([everything, choosy, order])
    events: list[EngineEvent] = [
        TextDelta("a"),
        WarningEvent("w", "careful"),
        ToolCallFinished(ToolCall("c1", "read", {}), "done", "ok"),
        _Subclassed("s", "sub"),
        _Other(),
        TextDelta("b"),
    ]
    for event in events:
        fanout.emit(event)
    assert everything.events == events == order.events
    assert choosy.events == [events[1], events[2], events[3]]
    assert fanout.sinks == (everything, choosy, order)
