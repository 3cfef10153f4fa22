"""Sub-command implementations, one module per command (imported lazily by ``cli``)."""
