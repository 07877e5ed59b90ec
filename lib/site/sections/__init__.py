"""One model per notebook-only params section: a notebook stage depends on its own section's model alone."""
