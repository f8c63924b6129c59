"""Dialogs: per-row privacy of a run, and (later) export and preferences."""
