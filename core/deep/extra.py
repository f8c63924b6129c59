"""Whether the optional ``deep`` extra (JAX) is installed, and the error naming it.
"""

from __future__ import annotations

import importlib.util

from core.common.errors import InputError

__all__ = ["EXTRA", "INSTALL_HINT", "DeepUnavailable", "available", "require", "missing"]

#: the optional extra that brings JAX in
EXTRA = "deep"
INSTALL_HINT = ("install privplan[deep] (pip install 'privplan[deep]': jax, equinox, optax, "
                "gymnasium)")
_PACKAGES = ("jax", "jaxlib", "equinox", "optax")


class DeepUnavailable(InputError):
    """A network was asked for but the ``deep`` extra (JAX) is not installed."""


def missing() -> list[str]:
    """The packages of the ``deep`` extra that this interpreter cannot import.

    Returns
    -------
    list of str
        Empty when the extra is installed.

    Examples
    --------
    >>> isinstance(missing(), list)
    True
    """
    return [p for p in _PACKAGES if importlib.util.find_spec(p) is None]


def available() -> bool:
    """True when the ``deep`` extra is installed (nothing is imported).

    Examples
    --------
    >>> available() in (True, False)
    True
    """
    return not missing()


def require(field: str = "--model") -> None:
    """Raise :class:`DeepUnavailable`, naming ``field`` and the extra, unless JAX is here.

    Parameters
    ----------
    field : str
        The flag or field that asked for a network (named in the message).

    Raises
    ------
    DeepUnavailable
        With one line: what is missing and ``install privplan[deep]``.
    """
    gone = missing()
    if gone:
        raise DeepUnavailable(f"networks need the optional 'deep' extra ({', '.join(gone)} "
                              f"not installed): {INSTALL_HINT}", field=field)
