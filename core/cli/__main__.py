"""``python -m core.cli SUBCOMMAND …``: the headless command line, as ``python app.py``
(a PDF report loads Qt only when asked for one, where PySide6 is installed)."""

from core.cli.main import main

__all__: list[str] = []

if __name__ == "__main__":
    main()
