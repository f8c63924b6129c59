"""The headless command line: :mod:`core.cli.main` and one module per capability."""
