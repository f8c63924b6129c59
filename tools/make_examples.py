"""Regenerate ``assets/examples/`` from ``core.mdp.examples`` (``make examples``).

The test ``tests/core/mdp/test_examples.py`` checks that the committed files equal what
this script writes, so the assets never drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.mdp.examples import FOUR_STARTUPS_NOTE, example2, four_startups  # noqa: E402
from core.mdp.files import save_mdp  # noqa: E402
from core.project.files import save_project  # noqa: E402
from core.project.model import Project  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "assets" / "examples"


def builtin_project() -> Project:
    project = Project(name="PrivPlan examples",
                      notes="Built-in examples. " + FOUR_STARTUPS_NOTE)
    project.add_mdp(four_startups(), "four-startups")
    project.mdps[0].note = FOUR_STARTUPS_NOTE
    project.add_mdp(example2(), "example-2")
    return project


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    save_mdp(four_startups(), OUT / "four_startups.mdp.json")
    save_mdp(example2(), OUT / "example2.mdp.json")
    save_mdp(example2(), OUT / "example2.mdp.npz")
    save_project(builtin_project(), OUT / "builtin.privplan.json")
    print(f"wrote examples to {OUT}")


if __name__ == "__main__":
    main()
