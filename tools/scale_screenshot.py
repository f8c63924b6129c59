"""Picture the app on a 10⁶-state model: ``python tools/scale_screenshot.py OUT.png``.

Writes ``sparse_random_mdp(10⁶, 4, 10, 10)`` as an ``.mdp.npz`` (about 0.5 GB, in a temporary
folder), opens it the way File ▸ Open does (in the background), finds state ``s123456`` in
the scale panel and saves a PNG of the window. Run it on a laptop-sized X screen, e.g.
``xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python tools/scale_screenshot.py
docs/screenshot-scale.png``. It needs about 3 GB of memory and a minute of CPU.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    out = Path(argv[0])
    from PySide6.QtCore import QEventLoop, QTimer

    from core.mdp import save_mdp
    from core.mdp.examples import sparse_random_mdp
    from core.project import Project
    from gui.shell.app import _application
    from gui.shell.document import ProjectDocument
    from gui.shell.main_window import MainWindow

    app = _application()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "million.mdp.npz"
        mdp = sparse_random_mdp(1_000_000, 4, 10, 10, seed=1, name="million")
        save_mdp(mdp, path)
        del mdp
        window = MainWindow(ProjectDocument(Project(name="scale")), use_settings=False)
        window.resize(1366, 768)
        window.show()
        loop = QEventLoop()
        window.file_opened.connect(lambda _p: loop.quit())
        window.open_failed.connect(lambda _m: loop.quit())
        window.open_path(str(path), background=True)
        loop.exec()
        ws = window.active_workspace()
        if ws is None or ws.editor.scale_panel is None:
            print("the model did not open as a large model", file=sys.stderr)
            return 1
        panel = ws.editor.scale_panel
        panel.search.setText("s123456")
        panel.find()
        QTimer.singleShot(1500, loop.quit)
        loop.exec()
        ok = window.grab().save(str(out))
        window.discard_and_close()
    app.processEvents()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
