"""Read a JSON file the one strict way every PrivPlan loader uses.

Every failure is an :class:`~core.common.errors.InputError` naming the file and saying what
is wrong in words a user can act on:

* a file that is not text (an image, an archive, a PDF) is named for what it looks like —
  "this is not a PrivPlan project, MDP, map or set-up file: it looks like a PNG image";
* malformed JSON gives the line and column;
* ``NaN``, ``Infinity`` and numbers too large for a float (``1e309``) are refused with
  their position (JSON numbers must be finite, and such a value could never be saved back);
* nesting deeper than :data:`MAX_DEPTH` is refused before the parser recurses;
* a file larger than :data:`MAX_BYTES` is refused with its size, and a FIFO, a device
  (``/dev/zero``) or a folder before a byte is read
  (:func:`core.common.resources.read_bytes`).

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "x.json")
>>> def write(data):
...     with open(p, "wb") as fh:
...         _ = fh.write(data)
>>> write(b'{"a": [1, 2.5]}')
>>> read_json(p)
{'a': [1, 2.5]}
>>> write(b'{"a": 1e309}')
>>> try:
...     read_json(p)
... except InputError as exc:
...     print(exc.problem)
1e309 at line 1, column 7 is not a valid number (JSON numbers must be finite)
>>> write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8))
>>> try:
...     read_json(p)
... except InputError as exc:
...     print(exc.problem)
this is not a PrivPlan project, MDP, map or set-up file: it looks like a PNG image
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

from core.common.errors import InputError

__all__ = ["read_json", "loads_strict", "json_problem", "describe_bytes", "MAX_DEPTH",
           "MAX_BYTES", "JSON_EXPANSION"]

#: Deepest nesting of arrays and objects accepted (PrivPlan's own files nest < 10 deep).
MAX_DEPTH = 200
#: Largest JSON file accepted (a 2,000-state dense model inline is ~ 400 MB; big models
#: keep their arrays in NPZ sidecars).
MAX_BYTES = 1 << 30
#: Memory the parsed objects take per byte of JSON text (numbers and short strings in
#: Python lists and dicts; measured 3-6x, with a margin).
JSON_EXPANSION = 8

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"), (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an .npz file? open it as an MDP)"),
    (b"\x93NUMPY", "a NumPy array file"), (b"\x1f\x8b", "a gzip archive"),
    (b"SQLite format 3", "an SQLite database"), (b"\x7fELF", "a program"),
)


class _NonFinite(ValueError):
    pass


def _reject_constant(name: str) -> float:
    raise _NonFinite(name)


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _NonFinite(text)
    return x


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 308:  # larger than any float: cannot be a PrivPlan value
        raise _NonFinite(text[:20] + "…")
    return int(text)


def describe_bytes(head: bytes) -> str:
    """What the first bytes of a file look like, for an error message.

    Parameters
    ----------
    head : bytes
        The first bytes of the file (a few dozen are enough).

    Returns
    -------
    str
        "a PNG image", "binary data", "an empty file", … ("" if it looks like text).
    """
    if not head:
        return "an empty file"
    for sig, name in _SIGNATURES:
        if head.startswith(sig):
            return name
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not a multi-byte character cut at the end
            return "binary data"
    if b"\x00" in head:
        return "binary data"
    return ""


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings left out), vectorised."""
    import numpy as np

    bare = np.frombuffer(_STRING.sub("", text).encode("utf-8", "replace"), dtype=np.uint8)
    step = ((bare == ord("[")) | (bare == ord("{"))).astype(np.int32) \
        - ((bare == ord("]")) | (bare == ord("}"))).astype(np.int32)
    return int(np.cumsum(step).max(initial=0))



#: the json module's messages that end in "… at" (their position is given separately)
_CUT_MESSAGES = {"Unterminated string starting at": "a string starts here and is never closed",
                 "Invalid control character at": "a control character inside a string "
                                                 "(escape it, e.g. \\n)",
                 "Extra data": "more text after the JSON value"}


def json_problem(exc: json.JSONDecodeError, text: str) -> str:
    """A whole sentence for a JSON syntax error (the json module's own messages such as
    "Unterminated string starting at" end mid-sentence; the position is said before it).

    Parameters
    ----------
    exc : json.JSONDecodeError
        The error.
    text : str
        The text that was parsed.

    Returns
    -------
    str
        The problem, ending with a full stop; a text that ends before the JSON is complete
        says so ("the file ends early: truncated?").
    """
    msg = _CUT_MESSAGES.get(exc.msg, exc.msg)
    if msg.endswith(" at"):
        msg = msg[:-3]
    msg = msg[:1].lower() + msg[1:]
    truncated = exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip())
    if truncated and exc.msg != "Extra data":
        msg += "; the text ends before the JSON is complete (a truncated file?)"
    return msg + "."


def loads_strict(text: str, *, file: str | None = None) -> Any:
    """Parse JSON text strictly (finite numbers, bounded depth).

    Parameters
    ----------
    text : str
        The JSON text.
    file : str, optional
        The file it came from (named in errors).

    Returns
    -------
    Any
        The parsed value.

    Raises
    ------
    InputError
        For malformed JSON, non-finite or too-large numbers, or nesting past
        :data:`MAX_DEPTH`.
    """
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep (PrivPlan files are "
                         "shallow)", file=file)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON at line {exc.lineno}, column {exc.colno}: "
                         f"{json_problem(exc, text)}", file=file) from None
    except _NonFinite as exc:
        token = str(exc.args[0])
        pat = re.escape(token.rstrip("…")) if token.endswith("…") else \
            r"(?<![\w\".])" + re.escape(token) + r"(?![\w\".])"
        # strings blanked (same length, so positions hold): a token quoted in a string
        # earlier in the text ("note": "a 1e309 b") is not the number refused
        bare = _STRING.sub(lambda s: '"' + " " * (len(s.group()) - 2) + '"', text)
        m = re.search(pat, bare)
        where = ""
        if m:
            line = text.count("\n", 0, m.start()) + 1
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            where = f" at line {line}, column {col}"
        raise InputError(f"{token}{where} is not a valid number (JSON numbers must be finite)",
                         file=file) from None
    except RecursionError:  # the depth check above makes this unreachable in practice
        raise InputError(f"nested more than {MAX_DEPTH} levels deep", file=file) from None


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file, turning every failure into an InputError that names the file.

    Parameters
    ----------
    path : str or PathLike
        The file.

    Returns
    -------
    Any
        The parsed value.

    Raises
    ------
    InputError
        Naming the file: missing, unreadable, not a text file (with what it looks like),
        too large, malformed, non-finite or too deeply nested.
    """
    from core.common.resources import check_memory, format_bytes, read_bytes

    p = str(path)
    # a regular file only (a FIFO, /dev/zero or a folder is refused before any read), of at
    # most MAX_BYTES, whose parsed form (about JSON_EXPANSION x its size) fits in memory
    raw = read_bytes(p, max_bytes=MAX_BYTES, what="JSON file (large models go in .npz files)")
    try:
        check_memory(JSON_EXPANSION * len(raw), "file",
                     detail=f"parsing {format_bytes(len(raw))} of JSON")
    except InputError as exc:
        raise exc.with_file(p) from None
    looks = describe_bytes(raw[:64])
    if looks and looks != "an empty file":
        raise InputError(f"this is not a PrivPlan project, MDP, map or set-up file: it looks "
                         f"like {looks}", file=p)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"this is not a PrivPlan project, MDP, map or set-up file: it is not "
                         f"UTF-8 text (byte {exc.start} is 0x{raw[exc.start]:02x})",
                         file=p) from None
    if not text.strip():
        raise InputError("the file is empty (a PrivPlan file holds one JSON object)", file=p)
    return loads_strict(text, file=p)
