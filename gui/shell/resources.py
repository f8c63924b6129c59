"""Where bundled files live: the source tree, or the PyInstaller bundle when frozen."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["asset_path", "base_dir", "BUILTIN_PROJECT", "ABOUT_HTML"]

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

# Help ▸ About PrivPlan (gui.shell.main_window)
ABOUT_HTML = """<h3>PrivPlan {version}</h3>
<p>Privacy-preserving policy synthesis for Markov decision processes with the Dirichlet
mechanism, and the cost of privacy it brings (Gohari, Hale &amp; Topcu, CDC 2020;
Gohari, dissertation, ch. 1–2).</p>
<p><b>Privacy note.</b> PrivPlan works offline and sends nothing anywhere. A <i>seeded
experiment</i> is reproducible and meant for studying the method — it is not a private
release. Quantities marked <i>oracle view</i> (V, |V̄ − V|) are computed from the true
model, which the private algorithm never sees: never publish them as private results.
The four-startups model is an illustrative placeholder, not the paper's model.</p>"""
