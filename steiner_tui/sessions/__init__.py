"""Durable sessions: the JSONL log, lineage, history.md, resume, fork, delete and evict."""
