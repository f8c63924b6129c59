"""Input checking shared by the core: one error type that names the field.

Every user-facing validation error is an :class:`InputError`. Its message names the
field (and file, when known) and the problem, so the command line can print it as one
line and exit 2, and the GUI can show it in a dialog.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.common.errors import InputError

__all__ = [
    "InputError",
    "RandomSource",
    "as_random_source",
    "check_b",
    "check_beta",
    "check_choice",
    "check_flag",
    "check_int",
    "check_finite",
    "check_k",
    "check_non_negative",
    "check_positive",
    "check_probability",
    "check_rate",
    "check_seed",
    "check_sensitivity",
    "check_whole",
    "check_record_params",
    "SENSITIVITY_RANGE",
    "K_MAX",
    "B_MIN",
]

#: Smallest adjacency radius b accepted: a probability row holds about 16 significant
#: digits, so rows closer than this are not told apart and the privacy loss at such a b
#: underflows (at b = 5e-324 the designer's epsilon read exactly 0).
B_MIN = 1e-12

#: Largest Dirichlet concentration k accepted anywhere (flags, project files, the window):
#: beyond it k·η and k·γ lose the double precision the accountant needs (the Dirichlet noise
#: is then below 1e-6 of an entry anyway), and sums over k overflow near the float maximum.
K_MAX = 1e12

#: The sensitivities a mechanism accepts: numbers far from the float range's ends, so that
#: sensitivity / epsilon, the noise and the pairs at that distance stay normal doubles (a
#: query in other units is rescaled: differential privacy is scale-free).
SENSITIVITY_RANGE = (1e-100, 1e100)


def _is_finite_number(x: Any) -> bool:
    try:
        return bool(np.isfinite(float(x)))
    except (TypeError, ValueError):
        return False


def _is_number(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def check_positive(value: Any, name: str) -> float:
    """Return ``value`` as a float after checking it is finite and > 0 (not a bool or text).

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float
        The value.
    """
    # a flag is not a number: float(True) is 1.0, and epsilon=True must not mean ε = 1;
    # nor is text: float("1") is 1.0, and a string reaching a check is a caller's mistake
    if isinstance(value, (bool, str, bytes)) or not _is_finite_number(value) \
            or float(value) <= 0:
        raise InputError(f"must be a finite number > 0, got {value!r}", field=name)
    return float(value)


def check_finite(value: Any, name: str) -> float:
    """Return ``value`` as a float after checking it is a finite number (not a bool).

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float

    Examples
    --------
    >>> check_finite(-2, "goal_bonus")
    -2.0
    >>> try:
    ...     check_finite(float("nan"), "goal_bonus")
    ... except InputError as exc:
    ...     print(exc)
    goal_bonus: must be a finite number, got nan
    """
    if isinstance(value, (bool, str)) or not _is_finite_number(value):
        raise InputError(f"must be a finite number, got {value!r}", field=name)
    return float(value)


def check_non_negative(value: Any, name: str, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float after checking it is a number >= 0 (finite unless
    ``allow_inf``: +inf then means "unlimited").

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.
    allow_inf : bool
        Accept +inf.

    Returns
    -------
    float

    Examples
    --------
    >>> check_non_negative(float("inf"), "comm_budget", allow_inf=True)
    inf
    >>> try:
    ...     check_non_negative(-1, "comm_budget", allow_inf=True)
    ... except InputError as exc:
    ...     print(exc)
    comm_budget: must be >= 0, got -1
    """
    ok = not isinstance(value, (bool, str)) and (
        _is_finite_number(value) or allow_inf and _is_number(value) and float(value) == np.inf)
    if not ok or float(value) < 0:
        raise InputError(f"must be >= 0, got {value!r}", field=name)
    return float(value)


def check_probability(value: Any, name: str) -> float:
    """A probability or a rate: a finite number in the closed [0, 1].

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float

    Examples
    --------
    >>> try:
    ...     check_probability(1.5, "p_explore")
    ... except InputError as exc:
    ...     print(exc)
    p_explore: must lie in [0, 1], got 1.5
    """
    if isinstance(value, (bool, str)) or not _is_finite_number(value) or not (
            0.0 <= float(value) <= 1.0):
        raise InputError(f"must lie in [0, 1], got {value!r}", field=name)
    return float(value)


def check_sensitivity(value: Any, name: str = "sensitivity") -> float:
    """A sensitivity: a finite number in :data:`SENSITIVITY_RANGE`.

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float

    Examples
    --------
    >>> check_sensitivity(2.0)
    2.0
    >>> try:
    ...     check_sensitivity(5e-324)
    ... except InputError as exc:
    ...     print(exc.problem)
    must lie in [1e-100, 1e+100] (rescale the query's units), got 5e-324
    """
    lo, hi = SENSITIVITY_RANGE
    if not _is_finite_number(value) or not lo <= float(value) <= hi:
        raise InputError(f"must lie in [{lo:g}, {hi:g}] (rescale the query's units), got "
                         f"{value!r}", field=name)
    return float(value)


def check_k(k: Any, name: str = "k") -> float:
    """The Dirichlet concentration parameter: a real in (0, :data:`K_MAX`] (not necessarily
    integer).

    Parameters
    ----------
    k : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float
        k.

    Examples
    --------
    >>> check_k(100)
    100.0
    >>> try:
    ...     check_k(1e300)
    ... except InputError as exc:
    ...     print(exc.problem)
    must lie in (0, 1e+12] (larger k leaves the accountant without double precision), got 1e+300
    """
    value = check_positive(k, name)
    if value > K_MAX:
        raise InputError(f"must lie in (0, {K_MAX:g}] (larger k leaves the accountant without "
                         f"double precision), got {value:g}", field=name)
    return value


def check_beta(beta: Any, name: str = "beta") -> float:
    """β is both a tail probability and a mixing weight: it must lie in the open (0, 1).

    Parameters
    ----------
    beta : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float
        β.
    """
    if not _is_finite_number(beta) or not 0.0 < float(beta) < 1.0:
        raise InputError(f"must lie strictly between 0 and 1, got {beta!r}", field=name)
    return float(beta)


def check_b(b: Any, name: str = "b") -> float:
    """The adjacency radius b: a finite number in [:data:`B_MIN`, 1] (a neighbouring model
    moves up to b/2 probability between two entries of a row).

    Parameters
    ----------
    b : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float
        b.

    Examples
    --------
    >>> check_b(0.1)
    0.1
    >>> try:
    ...     check_b(0.0)
    ... except InputError as exc:
    ...     print(exc.field, exc.problem[:22])
    b must lie in [1e-12, 1]
    """
    if isinstance(b, (bool, str)) or not _is_finite_number(b) or not B_MIN <= float(b) <= 1.0:
        shown = f"{float(b):g}" if isinstance(b, (int, float, np.number)) else repr(b)
        raise InputError(f"must lie in [{B_MIN:g}, 1], got {shown} (a smaller radius is below "
                         "the precision of a probability row: epsilon would underflow to 0)",
                         field=name)
    return float(b)


def check_choice(value: Any, choices: tuple[str, ...], name: str) -> str:
    """One of a fixed set of names (a mode, a rule, an accountant).

    Parameters
    ----------
    value : Any
        The value to check.
    choices : tuple of str
        The names accepted.
    name : str
        The field named in the error.

    Returns
    -------
    str
        The value.

    Examples
    --------
    >>> check_choice("mix", ("refuse", "mix"), "domain_rule")
    'mix'
    >>> try:
    ...     check_choice("both", ("refuse", "mix"), "domain_rule")
    ... except InputError as exc:
    ...     print(exc)
    domain_rule: must be one of ('refuse', 'mix'), got 'both'
    """
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"must be one of {choices}, got {value!r}", field=name)
    return value


def check_flag(value: Any, name: str) -> bool:
    """A yes/no setting: ``True`` or ``False`` itself (not 0/1, not a string).

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    bool
        The value.

    Examples
    --------
    >>> try:
    ...     check_flag("yes", "monotonic")
    ... except InputError as exc:
    ...     print(exc)
    monotonic: must be true or false, got 'yes'
    """
    if not isinstance(value, bool):
        raise InputError(f"must be true or false, got {value!r}", field=name)
    return value


def check_int(value: Any, name: str, minimum: int = 1) -> int:
    """A count: an integer (not a bool, not a float) >= ``minimum``.

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.
    minimum : int
        The smallest value accepted.

    Returns
    -------
    int
        The value as a Python int.

    Examples
    --------
    >>> check_int(50, "runs")
    50
    >>> try:
    ...     check_int(2.0, "runs")
    ... except InputError as exc:
    ...     print(exc)
    runs: must be an integer >= 1, got 2.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"must be an integer >= {minimum}, got {value!r}", field=name)
    return int(value)


def check_whole(value: Any, name: str, minimum: int = 1) -> int:
    """A count that may arrive as a whole float (``3.0`` from a JSON file or a spin box):
    a finite number, not a bool, equal to an integer >= ``minimum``.

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.
    minimum : int
        The smallest value accepted.

    Returns
    -------
    int
        The value as a Python int.

    Examples
    --------
    >>> check_whole(3.0, "episodes")
    3
    >>> try:
    ...     check_whole(0, "episodes")
    ... except InputError as exc:
    ...     print(exc)
    episodes: must be a whole number >= 1, got 0
    """
    if isinstance(value, bool) or not _is_finite_number(value) or int(float(value)) != value \
            or value < minimum:
        raise InputError(f"must be a whole number >= {minimum}, got {value!r}", field=name)
    return int(value)


def check_rate(value: Any, name: str) -> float:
    """A rate or probability that may be 1 but not 0: a number in (0, 1].

    Parameters
    ----------
    value : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float

    Examples
    --------
    >>> check_rate(1 / 32, "sample_rate")
    0.03125
    >>> try:
    ...     check_rate(2.0, "sample_rate")
    ... except InputError as exc:
    ...     print(exc)
    sample_rate: must lie in (0, 1], got 2.0
    """
    if isinstance(value, bool) or not _is_finite_number(value) or not 0 < float(value) <= 1:
        raise InputError(f"must lie in (0, 1], got {value!r}", field=name)
    return float(value)


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """An experiment seed: None (one is drawn from the OS when needed) or an integer >= 0.

    Parameters
    ----------
    seed : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    int or None
    """
    return None if seed is None else check_int(seed, name, minimum=0)


@dataclass(frozen=True)
class RandomSource:
    """Where random numbers come from, and which mode that is.

    ``mode`` is ``"experiment"`` (seeded, reproducible, *not* for real releases) or
    ``"release"`` (noise from the operating system's CSPRNG). ``generator`` is a numpy
    Generator in experiment mode and a :class:`core.common.secure.SecureRandom` in
    release mode; both offer ``random``, ``standard_gamma`` and ``standard_exponential``.
    """

    generator: Any
    mode: str
    seed: int | None

    @property
    def label(self) -> str:
        if self.mode == "release":
            return "release mode (secure noise)"
        return f"seeded experiment (seed {self.seed})" if self.seed is not None else (
            "seeded experiment (caller's generator)")


def as_random_source(rng: "np.random.Generator | int | RandomSource | None") -> RandomSource:
    """Normalise ``rng``: an int or Generator gives experiment mode; ``None`` gives release mode.

    Parameters
    ----------
    rng : Generator, int, RandomSource or None
        A seed, a numpy generator, an existing source, or None (the OS's CSPRNG).

    Returns
    -------
    RandomSource
        The generator with its mode ("experiment" or "release") and seed.

    Examples
    --------
    >>> as_random_source(7).mode, as_random_source(7).seed
    ('experiment', 7)
    >>> as_random_source(None).mode
    'release'
    """
    if isinstance(rng, RandomSource):
        return rng
    if rng is None:
        from core.common.secure import SecureRandom

        return RandomSource(SecureRandom(), "release", None)
    if isinstance(rng, np.random.Generator):
        return RandomSource(rng, "experiment", None)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InputError(f"must be a non-negative integer, got {rng!r}", field="seed")
        return RandomSource(np.random.default_rng(int(rng)), "experiment", int(rng))
    raise InputError(f"must be an int seed, a numpy Generator or None, got {rng!r}", field="rng")


def fresh_seed() -> int:
    """A seed drawn from the OS, for when an experiment needs one but none was given."""
    import secrets  # here, not at start-up: it imports hashlib and hmac

    return secrets.randbits(63)


def check_record_params(data: Any, keys: Iterable[str], what: str, *,
                        required: Iterable[str] = ()) -> Mapping[str, Any]:
    """``data``, checked as the source of a parameters object's ``from_dict`` (its
    ``to_dict``, or a run record's ``params``): a mapping, every key one of ``keys``, the
    ``required`` ones present, and ``seeded``, when given, agreeing with ``seed``.

    Parameters
    ----------
    data : Any
        What to read the parameters from.
    keys : iterable of str
        The keys it may hold.
    what : str
        What the keys are of, for the message (``"an audit's parameters"``).
    required : iterable of str
        Keys it must hold.

    Returns
    -------
    Mapping
        ``data`` itself.

    Raises
    ------
    InputError
        Naming ``params`` (not a mapping), the first unknown or missing key, or ``seeded``.

    Examples
    --------
    >>> check_record_params({"seed": 3, "seeded": True}, ("seed", "seeded"), "a run's parameters")
    {'seed': 3, 'seeded': True}
    >>> try:
    ...     check_record_params({"seed": None, "seeded": True}, ("seed", "seeded"), "a run")
    ... except InputError as exc:
    ...     print(exc)
    seeded: says True but the seed is None
    """
    if not isinstance(data, Mapping):
        raise InputError(f"must be a JSON object, got {type(data).__name__}", field="params")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise InputError(f"not a key of {what}", field=str(unknown[0]))
    for key in required:
        if key not in data:
            raise InputError("is missing", field=key)
    seed = data.get("seed")
    if "seeded" in data and data["seeded"] is not (seed is not None):
        raise InputError(f"says {data['seeded']!r} but the seed is {seed!r}", field="seeded")
    return data
