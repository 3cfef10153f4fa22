"""Model providers implementing ``steiner_tui.engine.provider.Provider``.

Each SDK is imported by its provider's first call, never at start-up.
"""
