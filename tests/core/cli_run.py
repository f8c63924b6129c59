"""Run the command line in-process for a test: ``code, out, err = cli("bounds", path, ...)``.

Importable from every test under ``tests/core`` (pytest puts this folder on ``sys.path``
because it holds a ``conftest.py``); Qt-free, so it runs in ``.venv-core``.
"""

from __future__ import annotations

import io

from core.cli.main import run_cli


def cli(*argv: object) -> tuple[int, str, str]:
    """Run ``app.py ARGV...`` in-process; each argument is passed as ``str(arg)``.

    Returns the exit code and what was written to stdout and to stderr.
    """
    out, err = io.StringIO(), io.StringIO()
    code = run_cli([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()
