"""The context engine: pure, typed, and free of any UI import.

It assembles requests (sources, budgets, skills, session date), estimates tokens, snapshots every
request, and compacts conversations into generations. I/O (providers, clock, filesystem, tools)
is handed in through small interfaces. ``__all__`` below is the public surface; the acceptance
checks of ``engine-api.md`` call these names as written.
"""

from steiner_tui.engine.events import EngineEvent, EventSink, ListSink
from steiner_tui.engine.messages import (
    Image,
    Message,
    ToolCall,
    cumulative_prefix_hashes,
    message_hash,
    short_hash,
)

__all__ = [
    "EngineEvent",
    "EventSink",
    "Image",
    "ListSink",
    "Message",
    "ToolCall",
    "cumulative_prefix_hashes",
    "message_hash",
    "short_hash",
]
