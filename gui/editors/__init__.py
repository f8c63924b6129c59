"""Drawings of project items (read-only for now; the MDP editor is a later issue)."""
