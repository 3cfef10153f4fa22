"""steiner-tui: a Textual workbench that shows and steers an LLM coding session's context."""

__version__ = "0.1.0"
