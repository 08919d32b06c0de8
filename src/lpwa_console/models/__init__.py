"""Qt view-models (QtCore only): sessions, background tasks, paged table models."""
