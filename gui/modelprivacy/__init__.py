"""The Model privacy workspace (membership inference and defenses)."""
