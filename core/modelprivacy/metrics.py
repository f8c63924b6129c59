"""Small formulas of the RNN membership-inference paper that the lab reports or checks."""

from __future__ import annotations

__all__ = ["episodic_reward"]


def episodic_reward(steps: int, *, horizon: int = 200, gamma: float = 0.9,
                    reached: bool = True) -> float:
    """The RL task's reward (RNN paper eq. 2): 1 − γ·t/T if the goal is reached, else 0.

    >>> episodic_reward(20), episodic_reward(35)       # spec A5
    (0.91, 0.8425)
    """
    return (1.0 - gamma * steps / horizon) if reached else 0.0
