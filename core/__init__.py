"""PrivPlan core: Qt-free algorithms, models and file formats.

Nothing in this package may import PySide6, pyqtgraph or ``gui`` (checked by the
import-linter contract in ``pyproject.toml`` and by running ``tests/core`` without Qt).
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
