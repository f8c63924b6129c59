"""PrivPlan's PySide6 front end over the Qt-free :mod:`core`.

Import PySide6 before pyqtgraph (``gui.shell.app.run_gui`` does); heavy modules are imported
lazily where that is easy, so ``import gui`` stays cheap.
"""
