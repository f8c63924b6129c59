"""The label declutter's grid answers "does this rectangle meet any kept one?" exactly as a
scan of every kept rectangle does (random rectangles of mixed sizes, a fixed seed)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF

from gui.shell.canvas import _RectGrid


def test_the_grid_answers_as_a_scan_of_every_kept_rectangle():
    rng = np.random.default_rng(5)
    for trial in range(40):
        grid, kept = _RectGrid(), []
        scale = float(rng.choice([0.01, 1.0, 100.0]))
        disagreements = 0
        for _ in range(150):
            w, h = rng.lognormal(0.0, 1.2, size=2) * scale
            r = QRectF(float(rng.uniform(-20, 20)) * scale, float(rng.uniform(-20, 20)) * scale,
                       float(w), float(h))
            want = any(r.intersects(k) for k in kept)
            disagreements += grid.hits(r) != want
            if not want or rng.random() < 0.3:  # kept: as declutter keeps free ones (and some)
                grid.add(r)
                kept.append(r)
        assert disagreements == 0, trial
        assert len(kept) > 20
