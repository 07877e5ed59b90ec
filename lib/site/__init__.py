"""Notebooks as a site: running and rendering them, the course and its exercise checks, figures, display names, report checks."""
