"""Reports: the export dialog and PDF/HTML export of a project."""
