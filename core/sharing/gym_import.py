"""Import a gymnasium toy-text environment as a PrivPlan MDP (the optional ``gym`` extra).

``env.unwrapped.P[s][a]`` lists ``(probability, next_state, reward, terminated)``; the MDP
gets P(s, a, ·), the expected reward R(s, a) and, for a terminating transition, a move to an
absorbing copy of nothing: the next state is made absorbing with zero reward (its own row
loops), which is what "the episode ends" means for a discounted value. The result is a
normal PrivPlan MDP: editable, saveable, and the same everywhere else in the app.

Supported families (spec F1): FrozenLake (4×4, or ``:8x8``), CliffWalking and
Taxi. An id is **resolved against the installed gymnasium** (:func:`resolve_gym_id`): the
version asked for when it is registered, else the newest registered version of the same
family — gymnasium 1.x retired ``CliffWalking-v0`` (now ``-v1``) and ``Taxi-v3`` (now
``-v4``), and :func:`gym_environments` says which ids this installation runs and what each
resolves to. The discount defaults to 0.99 (an infinite horizon).

Examples
--------
>>> parse_gym_id("gym:FrozenLake-v1:8x8")
('FrozenLake-v1', '8x8')
>>> family_of("Taxi-v3")
'Taxi'
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.mdp.model import MDP

__all__ = ["GYM_IDS", "GYM_FAMILIES", "parse_gym_id", "import_gym", "gym_available",
           "gym_actions", "family_of", "resolve_gym_id", "gym_environments"]

#: The ids the docs name (older and newer versions of the three families).
GYM_IDS = ("FrozenLake-v1", "CliffWalking-v0", "CliffWalking-v1", "Taxi-v3", "Taxi-v4")
GYM_FAMILIES = ("FrozenLake", "CliffWalking", "Taxi")
_ID = re.compile(r"^([A-Za-z]+)-v(\d+)$")


def family_of(env_id: str) -> str:
    """The family of an id (``"Taxi-v3"`` → ``"Taxi"``); InputError for another family."""
    m = _ID.match(env_id)
    if not m or m.group(1) not in GYM_FAMILIES:
        raise InputError(f"unknown gymnasium environment {env_id!r}; PrivPlan imports the "
                         f"toy-text families {', '.join(GYM_FAMILIES)} (e.g. "
                         f"{', '.join(GYM_IDS)})", field="env")
    return m.group(1)


def _registered(family: str) -> list[tuple[int, str]]:
    """(version, id) of every registered id of ``family`` in the installed gymnasium."""
    from gymnasium.envs.registration import registry

    out = []
    for key in registry:
        m = _ID.match(key)
        if m and m.group(1) == family:
            out.append((int(m.group(2)), key))
    return sorted(out)


def resolve_gym_id(env_id: str) -> tuple[str, str | None]:
    """The registered id to load for ``env_id``, and a note when it is another version.

    Parameters
    ----------
    env_id : str
        E.g. ``"Taxi-v3"``.

    Returns
    -------
    (str, str or None)
        The id to pass to ``gymnasium.make`` and, when it differs, a sentence saying so.

    Raises
    ------
    InputError
        Another family, gymnasium missing, or no version of the family registered.
    """
    family = family_of(env_id)
    if not gym_available():
        raise InputError("gymnasium is not installed: pip install 'privplan[gym]' (make run and "
                         "make test install it)", field="env")
    import gymnasium

    versions = _registered(family)
    if any(key == env_id for _, key in versions):
        return env_id, None
    if not versions:
        raise InputError(f"gymnasium {gymnasium.__version__} registers no {family} "
                         "environment", field="env")
    newest = versions[-1][1]
    return newest, (f"{env_id} is not registered in the installed gymnasium "
                    f"{gymnasium.__version__}; {newest}, the newest {family} version it has, "
                    "was used")


def gym_environments() -> list[dict[str, Any]]:
    """Which of :data:`GYM_IDS` this installation runs, and as what.

    Returns
    -------
    list of dict
        ``{"id", "available", "resolves_to", "note"}`` per id (``available`` False, with the
        reason in ``note``, when gymnasium is missing).
    """
    out = []
    for gid in GYM_IDS:
        try:
            to, note = resolve_gym_id(gid)
            out.append({"id": gid, "available": True, "resolves_to": to, "note": note})
        except InputError as exc:
            out.append({"id": gid, "available": False, "resolves_to": None,
                        "note": exc.problem})
    return out


def gym_available() -> bool:
    """Whether gymnasium is installed (the ``gym`` extra)."""
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        return False
    return True


def parse_gym_id(text: str) -> tuple[str, str | None]:
    """``gym:ID[:VARIANT]`` → (ID, VARIANT).

    Parameters
    ----------
    text : str
        For example ``gym:FrozenLake-v1:8x8``.

    Returns
    -------
    (str, str or None)
    """
    body = text[4:] if text.startswith("gym:") else text
    env_id, _, variant = body.partition(":")
    family_of(env_id)
    if variant and not (family_of(env_id) == "FrozenLake" and variant in ("4x4", "8x8")):
        raise InputError(f"unknown variant {variant!r} of {env_id} (FrozenLake-v1 takes 4x4 "
                         "or 8x8)", field="env")
    return env_id, variant or None


def import_gym(text: str, *, discount: float = 0.99) -> MDP:
    """The MDP of a gymnasium toy-text environment (its transition table, exactly).

    Parameters
    ----------
    text : str
        ``gym:ID[:VARIANT]``.
    discount : float
        γ in (0, 1).

    Returns
    -------
    MDP

    Raises
    ------
    InputError
        Unknown id, or gymnasium is not installed (naming the extra to install), or the
        installed gymnasium cannot make the environment (its message, one line).

    Notes
    -----
    The resolved id and any note about a version change are in the MDP's name
    (``"Taxi-v4 (gymnasium; asked for Taxi-v3)"``); :func:`resolve_gym_id` gives the note.
    """
    asked, variant = parse_gym_id(text)
    env_id, note = resolve_gym_id(asked)
    import warnings

    import gymnasium

    kwargs: dict[str, Any] = {"map_name": variant} if variant else {}
    if family_of(env_id) == "FrozenLake":
        kwargs["is_slippery"] = True
    try:
        with warnings.catch_warnings():  # gymnasium's own deprecation chatter
            warnings.simplefilter("ignore")
            env: Any = gymnasium.make(env_id, **kwargs)
    except Exception as exc:  # noqa: BLE001 - gymnasium raises its own error types
        raise InputError(f"gymnasium {gymnasium.__version__} cannot make {env_id}: "
                         f"{type(exc).__name__}: {' '.join(str(exc).split())}",
                         field="env") from None
    try:
        raw: Any = env.unwrapped
        table = raw.P
        S = int(env.observation_space.n)
        A = int(env.action_space.n)
        desc = getattr(raw, "desc", None)
        s0 = int(np.argmax(raw.initial_state_distrib)) if hasattr(
            raw, "initial_state_distrib") else 0
    finally:
        env.close()
    P = np.zeros((S, A, S))
    R = np.zeros((S, A))
    terminal = np.zeros(S, dtype=bool)
    for s in range(S):
        for a in range(A):
            for prob, nxt, reward, done in table[s][a]:
                P[s, a, int(nxt)] += prob
                R[s, a] += prob * reward
                if done:
                    terminal[int(nxt)] = True
    # terminal states absorb with no reward (the episode has ended)
    for t in np.flatnonzero(terminal):
        P[t] = 0.0
        P[t, :, t] = 1.0
        R[t] = 0.0
    names: tuple[str, ...]
    if desc is not None and family_of(env_id) == "FrozenLake":
        cols = len(desc[0])
        names = tuple(f"{desc[s // cols][s % cols].decode()}{s // cols},{s % cols}"
                      for s in range(S))
    else:
        names = tuple(f"s{s}" for s in range(S))
    title = (f"{env_id}{':' + variant if variant else ''} (gymnasium"
             + (f"; asked for {asked})" if note else ")"))
    return MDP(P=P, R=R, horizon=None, discount=discount, initial_state=s0, state_names=names,
               action_names=tuple(gym_actions(env_id) for _ in range(S)), name=title)


def gym_actions(env_id: str) -> tuple[str, ...]:
    """The action names of a supported environment (their number is its m).

    Parameters
    ----------
    env_id : str
        An id of one of :data:`GYM_FAMILIES`.

    Returns
    -------
    tuple of str
    """
    family = family_of(env_id)
    if family == "FrozenLake":
        return ("left", "down", "right", "up")
    if family == "CliffWalking":
        return ("up", "right", "down", "left")
    return ("south", "north", "east", "west", "pickup", "dropoff")
