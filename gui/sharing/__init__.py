"""The Policy sharing workspace: :mod:`gui.sharing.panel`."""
