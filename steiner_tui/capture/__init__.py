"""Capture: what Claude Code, Codex and other agents send to their model API.

Agents do not show their requests. ``steiner-tui capture`` runs a local proxy (``proxy``) that
forwards each request to the real API and records it (``store``); ``decode`` reads a body into
blocks, tools and messages with every byte accounted for, ``usage`` reads the reply's usage, and
``report`` compares consecutive requests' cache prefixes. ``snapshots`` turns captured requests
into the engine's request snapshots, so the workbench's screens show them as they show their
own. Nothing here imports the UI.
"""
