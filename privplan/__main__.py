"""``python -m privplan …`` runs ``app.py``'s entry point: a subcommand headless, else the
window."""

import sys

if __name__ == "__main__":
    from app import main

    sys.exit(main())
