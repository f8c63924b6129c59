"""The Privacy plan workspace (``gui.plan.panel``): a study's releases, their budget shares and
forecasts, the composed budget, Optimise and Execute (``docs/privacy-plan.md``)."""

from __future__ import annotations

__all__: list[str] = []
