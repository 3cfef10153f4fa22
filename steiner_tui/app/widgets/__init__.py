"""The app's widgets, one per module; each holds display state only."""
