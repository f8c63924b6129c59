"""Reports of a project: the report model and its HTML rendering (PDF goes through Qt)."""
