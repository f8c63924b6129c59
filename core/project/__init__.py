"""The project document: its model, JSON files, migrations and autosave (Qt-free)."""
