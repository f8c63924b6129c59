"""Timestamps of records: ISO 8601, UTC, whole seconds.

Examples
--------
>>> len(now_iso()), now_iso().endswith("+00:00")
(25, True)
"""

from __future__ import annotations

import datetime as _dt

__all__ = ["now_iso"]


def now_iso() -> str:
    """The current time as ``YYYY-MM-DDTHH:MM:SS+00:00`` (UTC, no microseconds).

    Returns
    -------
    str
        The timestamp, as stored in run records and ledger entries.
    """
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
