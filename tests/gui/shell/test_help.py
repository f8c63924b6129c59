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


def test_the_welcome_page_offers_recent_projects_examples_and_the_guide(window, tmp_path):
    from gui.shell.welcome import WelcomePage

    recent = tmp_path / "mine.privplan.json"
    recent.write_text("{}", encoding="utf-8")
    window.settings.add_recent_file(str(tmp_path / "gone.privplan.json"))  # missing: not shown
    window.settings.add_recent_file(str(recent))
    for mdp_id in list(window.workspaces()):
        window.close_workspace(mdp_id)
    page = window.central.currentWidget()
    assert isinstance(page, WelcomePage) and page is window.closed_label
    page.refresh()
    assert [b.text() for b in page.recent_buttons] == ["mine.privplan.json"]
    calls = []
    window.open_recent = lambda p: calls.append(("recent", p))
    window.open_path = lambda p: calls.append(("path", p))
    page.recent_buttons[0].click()
    buttons = {b.text(): b for b in page.findChildren(type(page.recent_buttons[0]))}
    buttons["Tour of the user guide: two MDPs and a logistics map"].click()
    assert calls[0] == ("recent", str(recent))
    assert calls[1][0] == "path" and calls[1][1].endswith("tour.privplan.json")
    assert "User guide (F1)" in buttons
    assert len(buttons) >= 3 + 1 + 4  # recent, 2 projects, the guide, the example maps
