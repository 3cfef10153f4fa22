"""Model providers implementing ``steiner_tui.engine.provider.Provider``; SDKs imported lazily."""
