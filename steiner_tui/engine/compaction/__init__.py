"""Compaction: turns and retention, stages, summary requests, fallback, lineage, archive.

Modules, leaf first: ``turns`` (retention turns), ``retention`` (anchor, skill replay, pending
line, new conversation layout), ``reasons`` (fallback reason strings), ``triggers`` (why a
compaction ran, recorded in its outcome), ``lineage``
(generations; their outcomes are ``events.CompactionOutcome``), ``failures`` (the two
exceptions of a failed compaction), ``host`` (the protocol the runner implements and
``SummaryTarget``), ``summary_request`` (instruction, caps, isolation, empty summaries),
``archive`` (history note and deferred appends), ``history_render`` (``history.md`` Markdown),
``fallback`` (selection, LastMainRequest, memoized targets), ``escalation`` (stage counter,
health, replacement guard), ``stateful`` (usage-driven decisions for stateful providers),
``stage`` and ``stage_runner`` (one stage; normal then emergency), and ``operation``
(``compact_with_lineage``).
"""
