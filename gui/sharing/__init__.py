"""The Policy sharing workspace (issue 12): :mod:`gui.sharing.panel`."""
