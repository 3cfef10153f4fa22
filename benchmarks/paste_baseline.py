"""The paste baseline: a stock Textual app whose focused widget shows how much it was pasted.

``bench_paste.py`` sends the same bracketed paste to this and to ``steiner-tui``: what this app
costs is what Textual itself costs to read a paste and deliver it as ``events.Paste``.
"""

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static


class PasteTarget(Static, can_focus=True):
    """Shows the length of the last paste."""

    def on_paste(self, event: events.Paste) -> None:
        self.update(f"pasted {len(event.text)} characters")


class PasteBaseline(App[None]):
    """One focused widget that takes pastes."""

    def compose(self) -> ComposeResult:
        yield PasteTarget("ready for a paste")

    def on_mount(self) -> None:
        self.query_one(PasteTarget).focus()


if __name__ == "__main__":
    PasteBaseline().run()
