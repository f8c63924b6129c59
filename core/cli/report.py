"""``report PROJECT -o OUT.(pdf|html)``: rebuild the report of a project headless.

HTML is pure core (:func:`core.report.html.to_html`). PDF needs Qt, which the core never
imports at module level: the GUI package registers a renderer in :data:`PDF_RENDERER`, and
when none is registered a PDF request loads it by name (``gui.report.export``) inside
:func:`pdf_renderer`, so ``python -m core.cli report … -o OUT.pdf`` works wherever PySide6
is installed. Only where PySide6 is really missing is a PDF refused with a one-line
explanation (exit 2).

``--json`` prints ``{"output", "format", "sections", "bytes"}`` and, for PDF, ``"pages"``.
Set ``SOURCE_DATE_EPOCH`` (seconds since 1970) to pin the report's ``generated`` time,
which makes a seeded report byte-identical from run to run.

Examples
--------
>>> import io, tempfile, os
>>> from pathlib import Path
>>> from core.cli.main import run_cli
>>> builtin = Path(__file__).resolve().parents[2] / "assets/examples/builtin.privplan.json"
>>> out = os.path.join(tempfile.mkdtemp(), "r.html")
>>> run_cli(["report", str(builtin), "-o", out], io.StringIO())
0
"""

from __future__ import annotations

import argparse
import errno
import os
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import Progress, emit
from core.common.errors import InputError, WriteFailure

__all__ = ["PDF_RENDERER", "PdfRenderer", "add_report_parser", "cmd_report", "FORMATS",
           "pdf_renderer"]

FORMATS = ("html", "pdf")

#: ``render(report, path, *, progress) -> number of pages``; set by the GUI package.
PdfRenderer = Callable[..., int]
PDF_RENDERER: PdfRenderer | None = None


def add_report_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``report`` on the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("report", help="rebuild the report of a project (PDF or HTML)")
    sp.add_argument("project", metavar="PROJECT", help="*.privplan.json project file")
    sp.add_argument("-o", "--output", required=True,
                    help="OUT.pdf or OUT.html (the format follows the extension)")
    sp.add_argument("--sections", default=None,
                    help="comma-separated section ids to include (default: all but the "
                         "appendix of every ledger entry, ledger-entries), e.g. "
                         "overview,models,run-run-1,ledger,ledger-entries")
    common(sp)


def pdf_renderer() -> PdfRenderer:
    """The PDF renderer: the registered one, else the GUI's, loaded now (Qt is imported only
    here, when a PDF is asked for).

    Returns
    -------
    PdfRenderer

    Raises
    ------
    InputError
        On ``-o`` when PySide6 is not installed (or cannot be loaded).
    """
    global PDF_RENDERER
    if PDF_RENDERER is not None:
        return PDF_RENDERER
    import importlib
    import importlib.util

    if importlib.util.find_spec("PySide6") is None:
        raise InputError("PDF needs Qt (PySide6), which is not installed here: install "
                         "PrivPlan with its gui extra, or write .html", field="-o")
    try:
        # by name: the core's import graph stays free of the GUI (docs/architecture.md)
        importlib.import_module("gui.report.export").install_cli_pdf()
    except ImportError as exc:
        raise InputError(f"PDF needs Qt (PySide6), which is installed but cannot be loaded "
                         f"({exc}): write .html", field="-o") from None
    if PDF_RENDERER is None:  # install_cli_pdf sets it
        raise InputError("PDF needs the GUI's renderer, which did not register: write .html",
                         field="-o")
    return PDF_RENDERER


def _format_of(path: str) -> str:
    low = path.lower()
    for fmt in FORMATS:
        if low.endswith("." + fmt):
            return fmt
    raise InputError(f"must end in .pdf or .html, got {path!r}", field="-o")


def _check_writable(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError("is a folder, not a file name", field="-o", file=path)
    if not os.path.isdir(folder):
        raise InputError(f"folder {folder!r} does not exist", field="-o", file=path)
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError("cannot write here (permission denied)", field="-o", file=path)


def cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``report``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (progress).

    Returns
    -------
    int
        The exit code: 0 on success. Bad input raises
        :class:`~core.common.errors.InputError`, which :func:`core.cli.main.run_cli` prints as
        one line and turns into exit 2.
    """
    from core.common.atomic import atomic_write_text
    from core.project.files import load_project
    from core.report.html import build_report, section_titles, to_html

    fmt = _format_of(args.output)
    render = pdf_renderer() if fmt == "pdf" else None
    _check_writable(args.output)
    if not args.project.lower().endswith(".json"):
        raise InputError("must be a project file (*.privplan.json)", file=args.project)
    project = load_project(args.project)
    include = None
    if args.sections is not None:
        include = [s.strip() for s in args.sections.split(",") if s.strip()]
        known = [sid for sid, _ in section_titles(project)]
        unknown = [s for s in include if s not in known]
        if unknown or not include:
            raise InputError(f"unknown section {unknown[0]!r} (this project has: "
                             f"{', '.join(known)})" if unknown else "needs at least one "
                             "section id", field="--sections")
    report = build_report(project, project_path=args.project, include=include)
    pages = None
    try:
        if fmt == "html":
            atomic_write_text(args.output, to_html(report))
        else:
            assert render is not None
            pages = int(render(report, args.output, progress=Progress(err, "report")))
    except InputError as exc:
        raise exc if exc.file else exc.with_file(args.output) from None
    except WriteFailure:  # a full disk, a quota: the run failed, not the input (exit 3)
        raise
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG):
            raise WriteFailure(exc.errno, f"cannot write the report {args.output!r}: "
                               f"{exc.strerror or exc}") from None
        raise InputError(f"cannot write the report ({exc.strerror or exc})", field="-o",
                         file=args.output) from None
    size = os.path.getsize(args.output)
    payload: dict[str, Any] = {"output": args.output, "format": fmt,
                               "sections": [s.id for s in report.sections], "bytes": size}
    if pages is not None:
        payload["pages"] = pages
    emit(args, payload, lambda: (
        f"wrote {args.output}: {fmt.upper()} report of “{project.name}”, "
        f"{len(report.sections)} sections" + (f", {pages} pages" if pages else "")), out)
    return 0
