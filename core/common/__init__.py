"""Pieces every capability of the core shares (Qt-free)."""
