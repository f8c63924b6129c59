"""Help ▸ User Guide (F1): the user guide's page of the current workspace, in the browser.

The guide is the MkDocs site built from ``docs/`` (``make docs``) into ``build/docs-site/``;
the installer bundles it as ``docs-site/`` beside ``assets/`` (``packaging/privplan.spec``).
F1 opens the page of the tab in front — the MDP editor's for an MDP tab, a tool's own page
for a tool tab — and the guide's home page when no tab is open. In a source tree where the
guide has not been built yet, the page's Markdown source is opened instead and the status
bar says how to build the HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence

from gui.shell.resources import base_dir

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu

__all__ = ["GUIDE_PAGES", "HOME_PAGE", "MDP_PAGE", "guide_page", "guide_url", "current_key",
           "open_guide", "install_help_menu"]

#: the guide's page (under ``guide/``) of each tool tab, by its key in ``gui.shell.tools``
GUIDE_PAGES: dict[str, str] = {
    "calculator": "calculator",
    "plan": "plan",
    "advising": "advising",
    "ledger": "ledger",
    "logistics": "logistics",
    "audit": "audit",
    "sharing": "sharing",
    "modelprivacy": "modelprivacy",
    "agents": "agents",
    "report": "report",
}
#: the page of an MDP tab, and the page shown when no tab is open (or a tool has no page)
MDP_PAGE = "mdp"
HOME_PAGE = "index"


def guide_page(key: str | None) -> str:
    """The page name (without extension) of the workspace ``key`` (``"mdp"`` for an MDP tab)."""
    if key == MDP_PAGE:
        return MDP_PAGE
    return GUIDE_PAGES.get(key or "", HOME_PAGE)


def _site_root() -> Path:
    """Where the built guide lives: ``docs-site/`` in the bundle, ``build/docs-site/`` in a tree."""
    root = base_dir()
    bundled = root / "docs-site"
    return bundled if bundled.is_dir() else root / "build" / "docs-site"


def guide_url(key: str | None, site: Path | None = None) -> tuple[QUrl, bool]:
    """The URL of the guide's page for ``key``, and whether it is the built HTML.

    Falls back to the page's Markdown source (``docs/guide/PAGE.md``) when the HTML has not
    been built; ``(empty URL, False)`` when neither exists.
    """
    page = guide_page(key)
    html = (site or _site_root()) / "guide" / f"{page}.html"
    if html.is_file():
        return QUrl.fromLocalFile(str(html)), True
    source = base_dir() / "docs" / "guide" / f"{page}.md"
    if source.is_file():
        return QUrl.fromLocalFile(str(source)), False
    return QUrl(), False


def current_key(window: Any) -> str | None:
    """The key of the tab in front of ``window``: a tool's key, ``"mdp"``, or None."""
    tool = window.current_tool()
    if tool is not None:
        for key, widget in window.tools().items():
            if widget is tool:
                return str(key)
    return MDP_PAGE if window.active_workspace() is not None else None


def open_guide(window: Any, opener: Callable[[QUrl], bool] = QDesktopServices.openUrl) -> bool:
    """Open the guide's page of the current tab; says in the status bar what happened."""
    url, built = guide_url(current_key(window))
    status = window.statusBar()
    if url.isEmpty():
        status.showMessage("The user guide is not installed with this copy of PrivPlan "
                           "(build it with 'make docs').", 8000)
        return False
    if not built:
        status.showMessage("The user guide's HTML is not built ('make docs'): showing the "
                           "page's source.", 8000)
    ok = bool(opener(url))
    if not ok:
        status.showMessage(f"Could not open {url.toLocalFile()} (no browser?)", 8000)
    return ok


def install_help_menu(window: Any, menu: QMenu) -> QAction:
    """Add Help ▸ User Guide (F1) to ``menu``, opening the page of the current tab."""
    action = QAction("&User Guide", window)
    action.setShortcut(QKeySequence("F1"))
    action.setStatusTip("Open the user guide at the page of the current tab (F1)")
    action.triggered.connect(lambda: open_guide(window))
    first = menu.actions()
    if first:
        menu.insertAction(first[0], action)  # above About
    else:
        menu.addAction(action)
    window.addAction(action)
    window.user_guide_action = action
    return action
