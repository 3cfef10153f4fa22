"""The start-up baseline: a bare Textual app with a Header and a Footer, run as a program.

``bench_startup.py`` launches this and ``steiner-tui`` the same way and compares how long each
takes to put its first frame on the terminal.
"""

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header


class BareApp(App[None]):
    """A Header and a Footer."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Footer()


if __name__ == "__main__":
    BareApp().run()
