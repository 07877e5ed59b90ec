"""The AVeriTeC task: its score (METEOR over QA evidence), Ev2R (2025), and the runs' evidence as submissions."""
