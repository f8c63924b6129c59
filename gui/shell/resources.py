"""Where bundled files live: the source tree, or the PyInstaller bundle when frozen."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["asset_path", "base_dir", "BUILTIN_PROJECT"]

BUILTIN_PROJECT = ("examples", "builtin.privplan.json")


def base_dir() -> Path:
    """The folder holding ``assets/``: ``sys._MEIPASS`` when frozen, else the repository root."""
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        return Path(meipass)
    return Path(__file__).resolve().parents[2]


def asset_path(*parts: str) -> Path:
    """The path of a bundled asset, e.g. ``asset_path("examples", "builtin.privplan.json")``.

    A leading ``"assets"`` part is accepted too, so both spellings work.
    """
    if parts and parts[0] == "assets":
        parts = parts[1:]
    return base_dir().joinpath("assets", *parts)
