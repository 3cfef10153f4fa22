"""The tools the model can call (read, write, edit, bash, grep, glob, display_file, delegate).

Tools implement the ``Tool`` protocol of ``base.py``; the runner runs them through
``ToolExecutor`` with the session's ``PermissionPolicy``. This package may import the engine,
never the other way round.
"""

from steiner_tui.tools.registry import default_tools

__all__ = ["default_tools"]
