# PyInstaller runtime hook: unpack OpenDP's native library on first use.
#
# The bundle carries opendp.abi3.so xz-compressed (25 MB instead of 161 MB). Before any app
# code runs, this hook makes sure an unpacked copy exists in the user's cache folder
# (~/.cache/privplan/opendp-<size>-<crc>/, about 1.5 s once) and points OpenDP at it with
# OPENDP_LIB_DIR, which opendp reads when it is imported. Several processes may start at
# once (the frozen app's worker processes run this hook too): each writes its own temporary
# file and renames it into place, so a half-written library is never loaded. Where the cache
# folder cannot be written, a private temporary folder is used instead.
import lzma
import os
import sys
import tempfile
import zlib


def _unpack_opendp() -> None:
    base = getattr(sys, "_MEIPASS", None)
    if not base or os.environ.get("OPENDP_LIB_DIR"):
        return
    src = os.path.join(base, "opendp", "lib.xz", "opendp.abi3.so.xz")
    if not os.path.exists(src):
        return
    with open(src, "rb") as fh:
        head = fh.read(1 << 16)
    tag = f"{os.path.getsize(src)}-{zlib.crc32(head):08x}"
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates = [os.path.join(cache, "privplan", f"opendp-{tag}")]
    for folder in candidates + [None]:
        try:
            if folder is None:
                folder = tempfile.mkdtemp(prefix="privplan-opendp-")
            target = os.path.join(folder, "opendp.abi3.so")
            if not os.path.exists(target):
                os.makedirs(folder, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=".opendp.", suffix=".tmp", dir=folder)
                try:
                    with os.fdopen(fd, "wb") as out, lzma.open(src, "rb") as inp:
                        while True:
                            chunk = inp.read(1 << 22)
                            if not chunk:
                                break
                            out.write(chunk)
                    os.chmod(tmp, 0o755)
                    os.replace(tmp, target)
                finally:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
            # (opendp loads the one "*opendp*.so" of the folder; the temporaries of other
            # processes end in ".tmp" and are not candidates)
            os.environ["OPENDP_LIB_DIR"] = folder
            return
        except OSError:
            continue


_unpack_opendp()
