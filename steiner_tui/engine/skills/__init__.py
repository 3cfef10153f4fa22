"""Skills: discovery of ``SKILL.md`` folders and the envelopes that deliver them interactively.

Modules, leaf first: ``quote`` (the quoted form of names), ``modes`` (execution-mode
notices), ``envelopes`` (render, parse, split, prepend, strip, the body cap), ``effective`` (fold
envelopes across a conversation), ``delta`` (what the next message must carry, and the
interactive toggles), ``frontmatter`` and ``discovery`` (skill roots), ``replay`` (resume events).
"""
