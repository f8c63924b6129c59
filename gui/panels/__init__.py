"""Docked and workspace panels: project tree, run parameters, plots, log."""
