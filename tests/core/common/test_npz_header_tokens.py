"""An NPZ member whose header text does not even tokenize (found by the fuzz campaign: numpy
raised tokenize.TokenError, an internal error) is refused as unreadable, naming the array."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from core.common.errors import InputError
from core.common.resources import npz_inventory


def test_an_untokenizable_header_is_an_unreadable_archive(tmp_path: Path) -> None:
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, "  # never closed
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    member = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * 16
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("P.npy", member)
    path = tmp_path / "bad.npz"
    path.write_bytes(buf.getvalue())
    with pytest.raises(InputError) as info:
        npz_inventory(path)
    assert info.value.field == "P" and "not a readable NPZ archive" in str(info.value)
