"""Screens of the workbench, each pushed lazily with its own style sheet."""
