"""``python -m core.cli SUBCOMMAND …``: the headless command line, as ``python app.py``
(without Qt: a PDF report needs ``python -m privplan`` or ``python app.py``)."""

from core.cli.main import main

__all__: list[str] = []

if __name__ == "__main__":
    main()
