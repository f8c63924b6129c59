"""Compact names of the states and actions of an MDP.

A model with a million states cannot keep a million Python strings per name list (and
again per copy) without its names outweighing its transitions. :class:`Names` is an
immutable sequence of strings that stores them as cheaply as their kind allows:

* generated names (``"s0" … "s999999"``): a prefix and a count, nothing else;
* a few names: a tuple;
* many names: one UTF-8 byte buffer and an offset array (about the bytes of the names).

:class:`ActionNames` holds the action names of every state as an (S, A) array of codes
into one vocabulary (most models reuse a handful of action names), so ``names[s]`` is
the tuple of state s's action names, as before.

Both compare equal to tuples with the same strings, so code written for tuples keeps
working.

Examples
--------
>>> n = Names.generated("s", 3)
>>> list(n), n.index("s2"), n == ("s0", "s1", "s2")
(['s0', 's1', 's2'], 2, True)
>>> a = ActionNames.from_rows([("go", "stay"), ("stay", "go")])
>>> a[1], len(a.vocabulary)
(('stay', 'go'), 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, overload

import numpy as np

__all__ = ["Names", "ActionNames", "PACK_AT"]

#: Name lists at least this long are packed into one byte buffer.
PACK_AT = 4096


class Names(Sequence[str]):
    """An immutable sequence of names (see the module docstring)."""

    __slots__ = ("_n", "_prefix", "_tuple", "_blob", "_offsets", "_index")

    def __init__(self, names: Iterable[str] = ()) -> None:
        items = tuple(str(x) for x in names)
        self._n = len(items)
        self._prefix: str | None = None
        self._tuple: tuple[str, ...] | None = None
        self._blob: bytes | None = None
        self._offsets: np.ndarray | None = None
        self._index: dict[str, int] | None = None
        if self._n < PACK_AT:
            self._tuple = items
        else:
            encoded = [s.encode("utf-8") for s in items]
            self._blob = b"".join(encoded)
            offsets = np.zeros(self._n + 1, dtype=np.int64)
            np.cumsum([len(b) for b in encoded], out=offsets[1:])
            offsets.setflags(write=False)
            self._offsets = offsets

    @classmethod
    def generated(cls, prefix: str, n: int) -> "Names":
        """``prefix + str(i)`` for i in 0..n-1, stored as the prefix and the count."""
        out = cls.__new__(cls)
        out._n, out._prefix = int(n), str(prefix)
        out._tuple = out._blob = out._offsets = out._index = None
        return out

    @classmethod
    def of(cls, names: "Names | Iterable[str]") -> "Names":
        """``names`` itself when it is a :class:`Names`, else a new one."""
        return names if isinstance(names, Names) else cls(names)

    # ------------------------------------------------------------------ sequence
    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...

    def __getitem__(self, i: "int | slice") -> "str | tuple[str, ...]":
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(self._n)))
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("name index out of range")
        if self._tuple is not None:
            return self._tuple[i]
        if self._prefix is not None:
            return f"{self._prefix}{i}"
        assert self._blob is not None and self._offsets is not None
        return self._blob[int(self._offsets[i]):int(self._offsets[i + 1])].decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        if self._tuple is not None:
            return iter(self._tuple)
        if self._prefix is not None:
            p = self._prefix
            return (f"{p}{i}" for i in range(self._n))
        assert self._blob is not None and self._offsets is not None
        blob, off = self._blob, self._offsets.tolist()
        return (blob[off[i]:off[i + 1]].decode("utf-8") for i in range(self._n))

    def index(self, name: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of ``name`` (ValueError if absent); O(1) after the first call."""
        if start != 0 or stop is not None:
            return tuple(self).index(name, start, self._n if stop is None else stop)
        if self._prefix is not None and isinstance(name, str) and name.startswith(self._prefix):
            digits = name[len(self._prefix):]
            # ASCII digits only: "s٣" (an Arabic-Indic 3) or "s²" is not the name "s3"
            if digits.isascii() and digits.isdigit() and (digits == "0"
                                                          or not digits.startswith("0")):
                i = int(digits)
                if i < self._n:
                    return i
            raise ValueError(f"{name!r} is not a name")
        if self._prefix is not None:
            raise ValueError(f"{name!r} is not a name")
        if self._index is None:
            index: dict[str, int] = {}
            for i, s in enumerate(self):
                index.setdefault(s, i)
            self._index = index
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise ValueError(f"{name!r} is not a name") from None

    def __contains__(self, name: object) -> bool:
        try:
            self.index(name)
        except ValueError:
            return False
        return True

    def unique(self) -> bool:
        """True when no name appears twice."""
        if self._prefix is not None:
            return True
        if self._tuple is not None:
            return len(set(self._tuple)) == self._n
        self.index(self[0]) if self._n else None  # builds the index
        assert self._index is not None or self._n == 0
        return self._n == 0 or len(self._index or {}) == self._n

    def first_duplicate(self) -> str | None:
        """A name that appears twice, or None."""
        seen: set[str] = set()
        for s in self:
            if s in seen:
                return s
            seen.add(s)
        return None

    def is_default(self, prefix: str = "s") -> bool:
        """True when the names are ``prefix + index`` (generated or spelled out)."""
        if self._prefix is not None:
            return self._prefix == prefix or self._n == 0
        return all(n == f"{prefix}{i}" for i, n in enumerate(self))

    @property
    def is_generated(self) -> bool:
        """True for ``prefix + index`` names (nothing is stored per name)."""
        return self._prefix is not None

    @property
    def prefix(self) -> str | None:
        """The prefix of generated names (None otherwise)."""
        return self._prefix

    @property
    def nbytes(self) -> int:
        """Bytes held for the names (the packed buffer and offsets; tuples: the strings)."""
        if self._prefix is not None:
            return 0
        if self._tuple is not None:
            return sum(len(s) + 49 for s in self._tuple) + 8 * self._n
        assert self._blob is not None and self._offsets is not None
        return len(self._blob) + self._offsets.nbytes

    def to_array(self) -> np.ndarray:
        """The names as a numpy string array (for NPZ files)."""
        return np.array(list(self), dtype=str) if self._n else np.zeros(0, dtype="<U1")

    # ------------------------------------------------------------------ comparison
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Names):
            if self._n != other._n:
                return False
            if self._prefix is not None and other._prefix is not None:
                return self._prefix == other._prefix or self._n == 0
            if self._blob is not None and other._blob is not None:
                assert self._offsets is not None and other._offsets is not None
                return self._blob == other._blob and bool(
                    np.array_equal(self._offsets, other._offsets))
            return all(a == b for a, b in zip(self, other))
        if isinstance(other, (tuple, list)):
            return len(other) == self._n and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self._prefix is not None:
            return f"Names.generated({self._prefix!r}, {self._n})"
        head = ", ".join(repr(s) for s in self[:4])
        return f"Names([{head}{', …' if self._n > 4 else ''}] ({self._n}))"

    def __reduce__(self) -> tuple[Any, ...]:
        if self._prefix is not None:
            return (Names.generated, (self._prefix, self._n))
        if self._tuple is not None:
            return (Names, (self._tuple,))
        return (_packed, (self._blob, self._offsets))


def _packed(blob: bytes, offsets: np.ndarray) -> Names:
    out = Names.__new__(Names)
    out._n = len(offsets) - 1
    out._prefix = out._tuple = out._index = None
    out._blob, out._offsets = blob, offsets
    return out


class ActionNames(Sequence[tuple[str, ...]]):
    """The action names of every state: ``names[s]`` is a tuple of A strings.

    Stored as an (S, A) int32 array of codes into :attr:`vocabulary`.
    """

    __slots__ = ("codes", "vocabulary")

    def __init__(self, codes: np.ndarray, vocabulary: Sequence[str]) -> None:
        c = np.array(codes, dtype=np.int32, copy=True) if not (
            isinstance(codes, np.ndarray) and codes.dtype == np.int32
            and not codes.flags.writeable) else codes
        if c.ndim != 2:
            raise ValueError("codes must be an (S, A) array")
        c.setflags(write=False)
        self.codes = c
        self.vocabulary = tuple(str(v) for v in vocabulary)

    @classmethod
    def shared(cls, row: Sequence[str], n_states: int) -> "ActionNames":
        """Every state has the actions ``row`` (one row of codes, broadcast)."""
        vocab: dict[str, int] = {}
        codes = [vocab.setdefault(str(a), len(vocab)) for a in row]
        arr = np.broadcast_to(np.array(codes, dtype=np.int32), (int(n_states), len(codes)))
        return cls(np.ascontiguousarray(arr), list(vocab))

    @classmethod
    def generated(cls, n_states: int, n_actions: int) -> "ActionNames":
        """``a0 … a{A-1}`` in every state."""
        return cls.shared([f"a{j}" for j in range(n_actions)], n_states)

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[str]]) -> "ActionNames":
        """From S rows of A names each."""
        # one pass in C over the flattened names (no per-row Python loop): the vocabulary in
        # order of first appearance, then each name's code
        rows = rows if isinstance(rows, list) else list(rows)
        width = len(rows[0]) if rows else 0
        if set(map(len, rows)) - {width}:
            raise ValueError("every row needs the same number of names")
        flat = list(map(str, chain.from_iterable(rows)))
        vocab = list(dict.fromkeys(flat))
        code = {v: i for i, v in enumerate(vocab)}
        codes = np.fromiter(map(code.__getitem__, flat), dtype=np.int32, count=len(flat))
        return cls(codes.reshape(len(rows), width), vocab)

    @classmethod
    def of(cls, names: "ActionNames | Iterable[Sequence[str]]") -> "ActionNames":
        return names if isinstance(names, ActionNames) else cls.from_rows(names)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.codes.shape[0]), int(self.codes.shape[1]))

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @overload
    def __getitem__(self, s: int) -> tuple[str, ...]: ...

    @overload
    def __getitem__(self, s: slice) -> tuple[tuple[str, ...], ...]: ...

    def __getitem__(self, s: "int | slice") -> Any:
        if isinstance(s, slice):
            return tuple(self[i] for i in range(*s.indices(len(self))))
        v = self.vocabulary
        return tuple(v[c] for c in self.codes[int(s)].tolist())

    def name(self, s: int, a: int) -> str:
        """The name of action ``a`` of state ``s``."""
        return self.vocabulary[int(self.codes[s, a])]

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        v = self.vocabulary
        for row in self.codes.tolist():
            yield tuple(v[c] for c in row)

    def shared_row(self) -> tuple[str, ...] | None:
        """The one row every state has, or None when the rows differ."""
        if len(self) == 0:
            return ()
        first = self.codes[0]
        if (self.codes == first).all():
            return self[0]
        return None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionNames):
            if self.codes.shape != other.codes.shape:
                return False
            if self.vocabulary == other.vocabulary:
                return bool(np.array_equal(self.codes, other.codes))
            va, vb = np.array(self.vocabulary + ("",), dtype=object), \
                np.array(other.vocabulary + ("",), dtype=object)
            return bool((va[self.codes] == vb[other.codes]).all()) if self.codes.size else True
        if isinstance(other, (tuple, list)):
            return len(other) == len(self) and all(tuple(a) == b for a, b in zip(other, self))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ActionNames({len(self)} states, vocabulary {self.vocabulary[:6]!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ActionNames, (self.codes, self.vocabulary))
