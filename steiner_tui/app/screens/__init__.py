"""The app's screens, one per module (registered lazily by the app)."""
