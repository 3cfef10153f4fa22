"""The Textual workbench: app factory, screens, widgets, messages and command palette."""
