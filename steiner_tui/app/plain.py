"""The workbench's name for ``steiner_tui.plain`` (where the sanitizer lives, Textual-free)."""

from steiner_tui.plain import one_line, printable

__all__ = ["one_line", "printable"]
