"""Import a gymnasium toy-text environment as a PrivPlan MDP (the optional ``gym`` extra).

``env.unwrapped.P[s][a]`` lists ``(probability, next_state, reward, terminated)``; the MDP
gets P(s, a, ·), the expected reward R(s, a) and, for a terminating transition, a move to an
absorbing copy of nothing: the next state is made absorbing with zero reward (its own row
loops), which is what "the episode ends" means for a discounted value. The result is a
normal PrivPlan MDP: editable, saveable, and the same everywhere else in the app.

Supported ids (spec F1 / issue 12): ``FrozenLake-v1`` (4×4, or ``:8x8``), ``CliffWalking-v0``
(or ``-v1``), ``Taxi-v3``. The discount defaults to 0.99 (an infinite horizon).

Examples
--------
>>> parse_gym_id("gym:FrozenLake-v1:8x8")
('FrozenLake-v1', '8x8')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.common.errors import InputError
from core.mdp.model import MDP

__all__ = ["GYM_IDS", "parse_gym_id", "import_gym", "gym_available", "gym_actions"]

GYM_IDS = ("FrozenLake-v1", "CliffWalking-v0", "CliffWalking-v1", "Taxi-v3")


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
    if env_id not in GYM_IDS:
        raise InputError(f"unknown gymnasium environment {env_id!r}; PrivPlan imports "
                         f"{', '.join(GYM_IDS)}", field="env")
    if variant and not (env_id == "FrozenLake-v1" and variant in ("4x4", "8x8")):
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
        Unknown id, or gymnasium is not installed (naming the extra to install).
    """
    env_id, variant = parse_gym_id(text)
    try:
        import gymnasium
    except ImportError:
        raise InputError("gymnasium is not installed: pip install 'privplan[gym]' (make run and "
                         "make test install it)", field="env") from None
    kwargs: dict[str, Any] = {"map_name": variant} if variant else {}
    if env_id == "FrozenLake-v1":
        kwargs["is_slippery"] = True
    env: Any = gymnasium.make(env_id, **kwargs)
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
    if desc is not None and env_id == "FrozenLake-v1":
        cols = len(desc[0])
        names = tuple(f"{desc[s // cols][s % cols].decode()}{s // cols},{s % cols}"
                      for s in range(S))
    else:
        names = tuple(f"s{s}" for s in range(S))
    title = f"{env_id}{':' + variant if variant else ''} (gymnasium)"
    return MDP(P=P, R=R, horizon=None, discount=discount, initial_state=s0, state_names=names,
               action_names=tuple(gym_actions(env_id) for _ in range(S)), name=title)


def gym_actions(env_id: str) -> tuple[str, ...]:
    """The action names of a supported environment (their number is its m).

    Parameters
    ----------
    env_id : str
        One of :data:`GYM_IDS`.

    Returns
    -------
    tuple of str
    """
    if env_id == "FrozenLake-v1":
        return ("left", "down", "right", "up")
    if env_id.startswith("CliffWalking"):
        return ("up", "right", "down", "left")
    if env_id == "Taxi-v3":
        return ("south", "north", "east", "west", "pickup", "dropoff")
    raise InputError(f"unknown gymnasium environment {env_id!r}", field="env")
