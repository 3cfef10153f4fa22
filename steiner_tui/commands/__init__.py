"""Sub-command implementations, one module per command (``cli`` imports the one chosen)."""
