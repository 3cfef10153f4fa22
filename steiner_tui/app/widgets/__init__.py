"""Widgets of the workbench: display state only, fed by the screens."""
