"""Import: Claude Code session transcripts and Codex rollouts as read-only sessions.

Agents write their sessions to disk but show neither the context each request took nor their
compactions. ``claude`` and ``codex`` read those files into ``model.ImportedSession`` values
(per-request context, cache read and output tokens; compactions as generations; sub-agents
linked to the tool call that started them; what tool results cost), ``discover`` finds the
files, ``store`` keeps what was imported in the sessions folder. Nothing here imports the UI.
"""
