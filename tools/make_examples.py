"""Regenerate ``assets/examples/`` from ``core.mdp.examples`` (``make examples``).

Besides the models and the built-in project it writes the files the user guide's commands
run on: ``tour.privplan.json`` (the built-in project plus the fig41 logistics map as
``map-1``, for the commands that take a project) and ``prism/example2.*`` (Example 2 as a
PRISM model: ``.tra``, ``.lab``, ``.trew``, for ``import``).

The test ``tests/core/mdp/test_examples.py`` checks that the committed files equal what
this script writes, so the assets never drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.logistics.document import MapEntry  # noqa: E402
from core.logistics.examples import fig41  # noqa: E402
from core.mdp.examples import FOUR_STARTUPS_NOTE, example2, four_startups  # noqa: E402
from core.mdp.files import save_mdp  # noqa: E402
from core.mdp.interop import write_prism  # noqa: E402
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


def tour_project() -> Project:
    """The project the guide's commands record into: the built-in MDPs and the fig41 map."""
    project = builtin_project()
    project.name = "PrivPlan tour"
    project.notes = ("The project of the user guide's examples: copy it, then record runs "
                     "into the copy. " + FOUR_STARTUPS_NOTE)
    project.maps.append(MapEntry("map-1", fig41()))
    return project


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    save_mdp(four_startups(), OUT / "four_startups.mdp.json")
    save_mdp(example2(), OUT / "example2.mdp.json")
    save_mdp(example2(), OUT / "example2.mdp.npz")
    save_project(builtin_project(), OUT / "builtin.privplan.json")
    save_project(tour_project(), OUT / "tour.privplan.json")
    (OUT / "prism").mkdir(exist_ok=True)
    write_prism(example2(), OUT / "prism" / "example2")
    print(f"wrote examples to {OUT}")


if __name__ == "__main__":
    main()
