"""The tools the model can call (read, write, edit, bash, grep, glob, display_file, delegate)."""
