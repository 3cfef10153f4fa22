"""Writing into the project config only once the person has seen the change.

The what-if view's ``w`` (and ``/whatif N save``) and ``/compaction save`` write the opened
repository's ``.steiner/config.toml``, and nothing is written there unless asked: this dialog
shows exactly what would be, the file and the change as a unified diff of its text (a new file
all added), before anything is written. Enter or ``y`` writes it, Esc or ``n`` cancels. The
screen is dismissed with a ``SaveOutcome``: the file written, or why it was not, or neither
(cancelled); the caller says so and, once written, uses the setting.

The plan and the write are ``config_write``'s (``tomlkit`` keeps the rest of the file). This
module imports it, and the steering screen imports this one when it first asks, so ``tomlkit``
loads with the first save, never on the way to the first frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from steiner_tui.app.plain import printable
from steiner_tui.app.tool_view import DIFF_STYLES
from steiner_tui.config import ConfigError
from steiner_tui.config_write import (
    ConfigChange,
    diff_lines,
    plan_compaction_mode,
    plan_compaction_threshold,
    write_change,
)
from steiner_tui.resources import styles_dir

__all__ = ["ConfigSaveScreen", "SaveOutcome"]


class SaveOutcome(msgspec.Struct, frozen=True):
    """What came of the dialog: the file ``written``, or the ``error`` that stopped the write;
    neither when it was cancelled."""

    written: Path | None = None
    error: str = ""


def diff_rows(lines: list[str]) -> Iterator[Static]:
    """The diff's lines as text, never markup, each line's mark (`` ``, ``-``, ``+``) in a
    column of its own so that a long line wraps under its text: added lines green, removed
    red, hunk headers (across both columns) accented."""
    if not lines:
        text = Content.styled("no change: the file already holds this", "$text-muted")
        yield Static(text, classes="diff-hunk")
        return
    for line in lines:
        style = DIFF_STYLES.get(line[:1], "")
        if line.startswith("@@"):
            yield Static(Content.styled(printable(line), style), classes="diff-hunk")
            continue
        yield Static(Content.styled(line[:1], style), classes="diff-mark")
        yield Static(Content.styled(printable(line[1:]), style), classes="diff-text")


class ConfigSaveScreen(ModalScreen[SaveOutcome]):
    """Shows a planned change of the project config; writes it only when confirmed."""

    CSS_PATH = styles_dir() / "config_save.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "write", "Write", id="config_save.write",
                tooltip="Write the change shown into the project config"),
        Binding("escape,n", "cancel", "Cancel", id="config_save.cancel",
                tooltip="Close without writing anything"),
        # A modal screen ends the binding chain before the app's keys: F1 is bound here too.
        Binding("f1", "app.help", "Help", id="app.help", show=False,
                tooltip="The keys of this dialog"),
    ]  # fmt: skip
    """Enter or y writes, Esc or n cancels (Tab reaches the buttons; Enter presses one); F1."""

    def __init__(self, change: ConfigChange, project_root: Path, what: str) -> None:
        super().__init__()
        self.change = change
        """The file, its text now and its text once written."""
        self.project_root = project_root
        """The project the file belongs to (its path is shown from there)."""
        self.what = what
        """What the setting does, in a sentence."""

    @classmethod
    def for_threshold(cls, project_root: Path, model_ref: str, tokens: int) -> ConfigSaveScreen:
        """The dialog for ``model_ref``'s soft trigger at ``tokens``.

        Raises:
            ConfigError: the file is not TOML, or the result would not be a valid config.
            OSError: the file cannot be read.
        """
        change = plan_compaction_threshold(project_root, model_ref, tokens)
        what = (
            f"The soft trigger of {model_ref}: compact from {tokens:,} tokens, in this session "
            "once written and in the project's next sessions."
        )
        return cls(change, project_root, what)

    @classmethod
    def for_mode(cls, project_root: Path, mode: str) -> ConfigSaveScreen:
        """The dialog for the compaction mode ``mode`` (raises as ``for_threshold``)."""
        change = plan_compaction_mode(project_root, mode)
        what = f"Compaction mode {mode} for the project's next sessions (this one uses it already)."
        return cls(change, project_root, what)

    def _where(self) -> Content:
        """``file .steiner/config.toml in <project folder>``, as the panels show paths (the
        whole path is the line's tooltip, and the notice names it once written)."""
        path, root = self.change.path, self.project_root
        new = " (a new file)" if self.change.before is None else ""
        if not path.is_relative_to(root):
            return Content.assemble(
                ("file ", "$text-muted"), printable(str(path)), (new, "$text-muted")
            )
        return Content.assemble(
            ("file ", "$text-muted"),
            printable(path.relative_to(root).as_posix()),
            (" in ", "$text-muted"),
            printable(root.name),
            (new, "$text-muted"),
        )

    def compose(self) -> ComposeResult:
        change = self.change
        with Vertical(id="config-save") as box:
            box.border_title = "Write to the project config?"
            box.border_subtitle = "Enter or y writes · Esc or n cancels"
            where = Static(self._where(), id="config-save-path")
            where.tooltip = Content(printable(str(change.path)))
            yield where
            yield Static(Content(printable(self.what)), id="config-save-what")
            with VerticalScroll(id="config-save-diff") as diff:
                diff.border_title = "change"
                with Grid(id="config-save-lines"):
                    yield from diff_rows(diff_lines(change))
            with Horizontal(id="config-save-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Write", id="write", variant="primary")

    def on_mount(self) -> None:
        """The diff has the focus: the arrows scroll it, Enter writes."""
        self.query_one("#config-save-diff").focus()

    def action_write(self) -> None:
        """Write the change (only if the file still holds what it was planned from)."""
        try:
            written = write_change(self.change)
        except (ConfigError, OSError) as error:
            self.dismiss(SaveOutcome(error=str(error)))
            return
        self.dismiss(SaveOutcome(written=written))

    def action_cancel(self) -> None:
        """Close without writing."""
        self.dismiss(SaveOutcome())

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "write":
            self.action_write()
        else:
            self.action_cancel()
