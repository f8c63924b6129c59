"""Documentation that runs: every shell block of the README and of the user guide, executed.

Each fenced block marked ```bash, ```sh, ```shell or ```console in ``README.md`` and
``docs/guide/*.md`` is one test. Its lines run in order in a fresh temporary folder that
holds a copy of the repository's ``assets/`` (so ``assets/examples/…`` resolves and nothing
in the tree is written), and every ``python app.py …`` line must exit 0.

How a line is run (the rules, in the order they are tried):

* ``python app.py COMMAND …`` (also ``.venv/bin/python app.py``, ``privplan COMMAND``):
  ``app.py``'s ``main()`` of this tree, in this process (a fresh interpreter for each of
  some 70 lines cost more CPU than the commands themselves; the process boundary, exit
  codes and start-up are tested in tests/core/cli/test_cli_startup.py and
  test_cli_reliability.py), in the block's folder, with the rest split as a shell would;
  exit 0. Warnings are shown, not raised, as in a fresh interpreter.
* **GUI-opening commands are skipped by rule**: ``make run``, ``make screenshot``, and
  ``app.py`` without a subcommand (``python app.py [FILE]``, ``--screenshot``) open the window;
  the GUI tests cover it.
* **Set-up commands are skipped by rule**: other ``make`` targets (they build the virtual
  environments; ``make test`` is this suite), ``pip install``.
* ``cp``, ``mkdir``, ``ls`` and ``cat`` run through the shell in the temporary folder.
* Anything else fails the test: a new kind of command needs a rule here.

A block repeated word for word in another page runs once. A block that takes more than a minute
is marked in the Markdown, right before its fence, with ``<!-- docs-test: slow, run with:
COMMAND ; COMMAND … -->``: the commands after "run with:" (the same commands with smaller
arguments, separated by ``;``) run instead of the block. A block that needs something the
repository does not ship (a dask scheduler) is marked ``<!-- docs-test: skip, REASON -->`` and
only checked for its marker's reason.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import shutil
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
SHELL_LANGS = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r"<!--\s*docs-test:\s*(slow|skip)\s*,\s*(.*?)\s*-->", re.S)
APP = re.compile(r"^(?:\S*python3?\s+app\.py|privplan)(?:\s+|$)")
SHELL_OK = ("cp ", "mkdir ", "ls ", "cat ")
GUI_MAKE = ("make run", "make screenshot")
TIMEOUT_S = 120


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lines: tuple[str, ...]
    marker: tuple[str, str] | None  # ("slow", "run with: …") or ("skip", reason)

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _marker_before(text_lines: list[str], fence_index: int) -> tuple[str, str] | None:
    """The ``docs-test`` comment that ends on the last non-blank line before the fence."""
    i = fence_index - 1
    while i >= 0 and not text_lines[i].strip():
        i -= 1
    if i < 0 or not text_lines[i].rstrip().endswith("-->"):
        return None
    j = i
    while j >= 0 and "<!--" not in text_lines[j]:
        j -= 1
    m = MARKER.search("\n".join(text_lines[j:i + 1]))
    return (m.group(1), " ".join(m.group(2).split())) if m else None


def extract_blocks(path: Path) -> list[Block]:
    text_lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(text_lines):
        m = FENCE.match(text_lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        i += 1
        body = []
        while i < len(text_lines) and not text_lines[i].startswith("```"):
            body.append(text_lines[i])
            i += 1
        i += 1
        if lang in SHELL_LANGS:
            blocks.append(Block(path, start + 1, tuple(body), _marker_before(text_lines, start)))
    return blocks


def command_lines(lines: tuple[str, ...] | list[str]) -> list[str]:
    """Logical command lines: continuations joined, comments, prompts and blanks dropped."""
    out: list[str] = []
    pending = ""
    for raw in lines:
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        line = line.removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        out.append(re.sub(r"\s+#\s.*$", "", line).strip())
    return out


BLOCKS = [b for path in DOCS for b in extract_blocks(path)]
# a block repeated word for word (the quick start of the README and of the guide) runs once
RUN_BLOCKS = list({(b.lines, b.marker): b for b in reversed(BLOCKS)}.values())[::-1]


def classify(line: str) -> str:
    """'app', 'shell', or 'skip:<rule>'; raises for a line no rule covers."""
    if APP.match(line):
        args = shlex.split(APP.sub("", line, count=1))
        if not args or args[0].startswith("--screenshot") or not re.match(r"^[a-z-]+$", args[0]):
            return "skip:opens the window (GUI-opening command)"
        return "app"
    if line.startswith(GUI_MAKE):
        return "skip:opens the window (GUI-opening command)"
    if line.startswith("make "):
        return "skip:a make target builds the environments (make test runs this suite)"
    if re.match(r"^(\S*/)?pip3? install\b", line):
        return "skip:installs packages"
    if line.startswith(SHELL_OK):
        return "shell"
    raise AssertionError(f"no rule runs this documented command: {line!r} "
                         "(tests/core/test_docs_commands.py lists the rules)")


def _load_app():
    spec = importlib.util.spec_from_file_location("privplan_app_py", ROOT / "app.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


APP_PY = _load_app()


def _run_app(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``app.py ARGV`` in-process in ``cwd``: its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            warnings.simplefilter("default")
            try:
                code = APP_PY.main(argv)
            except SystemExit as e:  # argparse's --help and usage errors
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def _run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    kind = classify(line)
    if kind == "app":
        return _run_app(shlex.split(APP.sub("", line, count=1)), cwd)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(line, shell=True, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)


def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(ROOT / "assets", work / "assets")
    return work


def test_the_docs_have_shell_blocks_and_they_parse():
    assert len(BLOCKS) >= 10, [b.id for b in BLOCKS]
    ran = 0
    for block in BLOCKS:
        lines = command_lines(block.lines)
        assert lines, f"{block.id}: an empty shell block"
        if block.marker is not None and block.marker[0] == "skip":
            assert block.marker[1], f"{block.id}: a skipped block must say why"
            continue
        kinds = [classify(line) for line in lines]  # raises on a line no rule covers
        ran += kinds.count("app")
        for line in lines:  # an optional flag pasted literally, e.g. "[--alpha rigorous]"
            assert not re.search(r"\s\[-", line), f"{block.id}: literal brackets in {line!r}"
        if block.marker is not None:
            kind, rest = block.marker
            assert rest, f"{block.id}: a docs-test marker needs its reason or commands"
            if kind == "slow":
                assert rest.startswith("run with:"), f"{block.id}: 'slow, run with: …'"
    assert ran >= 20


def test_the_classifier_skips_the_window_and_runs_subcommands():
    assert classify("make run").startswith("skip:opens the window")
    assert classify(".venv/bin/python app.py").startswith("skip:opens the window")
    assert classify("python app.py my.privplan.json").startswith("skip:opens the window")
    assert classify("python app.py sweep a.json --k 10") == "app"
    assert classify("cp assets/examples/builtin.privplan.json my.privplan.json") == "shell"
    with pytest.raises(AssertionError, match="no rule"):
        classify("rm -rf /")


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=[b.id for b in RUN_BLOCKS])
def test_the_documented_commands_run(block: Block, tmp_path: Path):
    lines = command_lines(block.lines)
    if block.marker is not None:
        kind, rest = block.marker
        if kind == "skip":
            pytest.skip(f"marked in the docs: {rest}")
        lines = command_lines([c.strip() for c in rest.removeprefix("run with:").split(";")])
    work = _workdir(tmp_path)
    ran = 0
    for line in lines:
        if classify(line).startswith("skip:"):
            continue
        result = _run(line, work)
        assert result.returncode == 0, (
            f"{block.id}: `{line}` exited {result.returncode}\n{result.stderr[-2000:]}")
        ran += 1
    if ran == 0:
        pytest.skip("every line is skipped by rule (GUI-opening or set-up commands)")
