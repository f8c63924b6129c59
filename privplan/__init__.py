"""``python -m privplan SUBCOMMAND …``: the headless command line (see :mod:`core.cli.main`).

The application lives in ``core`` and ``gui``; this package only gives the command line the
product's name. Without a subcommand, ``python -m privplan [FILE]`` opens the window, like
``python app.py``.
"""
