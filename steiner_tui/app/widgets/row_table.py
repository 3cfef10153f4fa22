"""A table whose cursor is a row, where Home and End go to the first and the last row.

Textual's ``DataTable`` gives Home and End to its columns (Ctrl+Home and Ctrl+End go to its
rows). Every table here is a list read down (sessions, requests, generations, captures, a
request's blocks and messages), and the conversation and the skill list already take Home
and End to their first and last entry: a list of 400 sessions is ended with one key too.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable

__all__ = ["RowTable"]

Cell = TypeVar("Cell")


class RowTable(DataTable[Cell]):
    """A ``DataTable`` with a row cursor and zebra stripes; Home and End: first, last row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First", show=False, id="rows.first",
                tooltip="Go to the first row"),
        Binding("end", "scroll_bottom", "Last", show=False, id="rows.last",
                tooltip="Go to the last row"),
    ]  # fmt: skip

    def __init__(
        self, *, id: str | None = None, zebra_stripes: bool = True, fixed_columns: int = 0
    ) -> None:
        super().__init__(
            id=id, cursor_type="row", zebra_stripes=zebra_stripes, fixed_columns=fixed_columns
        )
