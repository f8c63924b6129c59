"""The logistics workspace: map editor, private route planning, experiments."""
