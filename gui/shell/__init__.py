"""The application shell: window, document, workers, tools registry, settings, shared widgets."""
