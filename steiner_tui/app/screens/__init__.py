"""The app's screens, one per module; all but the workbench are imported when first opened."""
