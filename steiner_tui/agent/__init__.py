"""The runner: turn progression, LastMainRequest, cancellation, tool execution, delegation."""
