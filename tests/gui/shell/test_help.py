"""Help ▸ User Guide (F1) opens the guide's page of the tab in front (gui/shell/help.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QKeySequence

from gui.shell import help as guide
from gui.shell.tools import TOOLS

ROOT = Path(__file__).resolve().parents[3]


def test_every_tool_and_the_mdp_tab_have_a_page_of_the_guide():
    # a tool registered without a page would send F1 to the home page silently
    assert set(TOOLS) <= set(guide.GUIDE_PAGES)
    for page in [*guide.GUIDE_PAGES.values(), guide.MDP_PAGE, guide.HOME_PAGE]:
        assert (ROOT / "docs" / "guide" / f"{page}.md").is_file(), page


def test_f1_opens_the_page_of_the_current_tab(window):
    opened = []
    action = window.user_guide_action
    assert action.shortcut() == QKeySequence("F1")
    help_menu = {a.text(): a.menu() for a in window.menuBar().actions()}["&Help"]
    assert action in help_menu.actions()

    def opener(url):
        opened.append(Path(url.toLocalFile()))
        return True

    window.open_tool("audit")
    assert guide.open_guide(window, opener)
    window.open_workspace("four-startups")
    assert guide.open_guide(window, opener)
    assert [p.stem for p in opened] == ["audit", "mdp"]
    assert all(p.parent.name == "guide" and p.is_file() for p in opened)


def test_the_built_html_is_preferred_to_the_markdown_source(tmp_path):
    site = tmp_path / "site"
    (site / "guide").mkdir(parents=True)
    url, built = guide.guide_url("ledger", site)
    assert not built and url.toLocalFile().endswith("docs/guide/ledger.md")
    (site / "guide" / "ledger.html").write_text("<html></html>", encoding="utf-8")
    url, built = guide.guide_url("ledger", site)
    assert built and Path(url.toLocalFile()) == site / "guide" / "ledger.html"
    assert guide.guide_page(None) == "index" and guide.guide_page("no-such-tool") == "index"
