"""Allow ``python -m steiner_tui``."""

from steiner_tui.cli import main

raise SystemExit(main())
