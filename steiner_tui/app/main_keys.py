"""The workbench's own keys, as data: run control, mode, screens, sub-agents, the side panels,
the permission key and the compaction mode.

Each binding has an id (the config's ``[keymap]`` moves it) and a tooltip (F1 lists it). Their
order is the footer's. The keys of the workbench's widgets are theirs: the skills' Space and
1-9 the sidebar's, ``p`` (pin) the conversation's, ``m`` (mask) the ranking's, ``+ - t w`` the
what-if view's.
"""

from __future__ import annotations

from textual.binding import Binding

__all__ = ["MAIN_BINDINGS"]

_RUN = Binding.Group("Run")
_PANELS = Binding.Group("Panels", compact=True)

MAIN_BINDINGS: tuple[Binding, ...] = (
    Binding("f4", "cycle_compaction", "Compaction", id="main.compaction_mode",
            tooltip="Compaction mode: auto (compacts by itself), ask (asks first), off (never "
            "by itself; a request that does not fit is still never sent)"),
    Binding("escape", "cancel_run", "Cancel", id="main.cancel", group=_RUN,
            tooltip="Stop the reply; what streamed is kept and marked interrupted"),
    Binding("ctrl+c", "interrupt", "Cancel", id="main.interrupt", show=False,
            tooltip="Stop the reply as Esc does, else clear the prompt (Up brings its text "
            "back; with text selected, Ctrl+C copies it)"),
    Binding("escape", "close_panel", "Close panel", id="main.close_panel", show=False,
            tooltip="Close the panel shown over the conversation (while no reply streams: "
            "then Esc stops the reply)"),
    Binding("shift+tab", "toggle_mode", "Mode", id="main.toggle_mode", key_display="⇧Tab",
            tooltip="Switch plan/build mode; the notice goes out with your next message"),
    Binding("ctrl+l", "app.lineage", "Lineage", id="main.lineage",
            tooltip="Browse compaction generations"),
    Binding("f2", "inspect", "Inspect", id="main.inspector",
            tooltip="Inspect the latest request"),
    Binding("ctrl+o", "sessions", "Sessions", id="main.sessions", show=False,
            tooltip="Saved sessions: Enter resumes one, d deletes one"),
    Binding("f3", "focus_subagents", "Sub-agents", id="main.subagents",
            tooltip="Focus the sub-agent panel (Enter opens a child's transcript)"),
    Binding("f9", "toggle_panel('skills')", "Skills", id="main.toggle_skills", group=_PANELS,
            tooltip="Show or hide the skills sidebar (over the conversation when narrow)"),
    Binding("f10", "toggle_panel('context')", "Context", id="main.toggle_context",
            group=_PANELS,
            tooltip="Show or hide the context panel (over the conversation when narrow)"),
    Binding("ctrl+r", "reload_context", "Reload files", id="main.reload_context",
            tooltip="Apply AGENTS.md / project-context changes now (re-sends the cached "
            "prefix); otherwise they apply at the next compaction"),
    Binding("f5", "retry", "Retry", id="main.retry", group=_RUN,
            tooltip="Send the message that got no reply, or whose reply an error or the app "
            "stopping cut off, once more (it is not stored twice)"),
    Binding("f8", "answer_permission", "Answer", id="main.permission", group=_RUN,
            tooltip="Turn to the tool's permission request (then a, A, r or R; typing "
            "never answers one)"),
)  # fmt: skip
"""Shown while they can act: Cancel while a run goes, Answer while a question waits, Reload
while changed files wait (``MainScreen.check_action``)."""
