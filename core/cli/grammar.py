"""One command-line grammar for every subcommand: the old spellings kept as warned aliases,
``--record PROJECT`` everywhere, command aliases and suggestions, an example in every help
screen, and errors as JSON with ``--json`` (``docs/formats-and-cli.md`` §5).

The command line may grow but never break: a flag that changed its name stays accepted under
the old one. :func:`add_alias` registers such an old spelling (hidden from ``--help``); using
it works as before and, once the command succeeds, prints one ``warning: … is deprecated``
line on stderr (an error stays one line). Errors name the spelling the user typed.

``--record PROJECT`` names the project a run is recorded in. In the commands whose input may
itself be a project (``bounds``, ``sweep``, ``design``, ``plan``, ``share``) the older bare
``--record`` (record into that input) is still accepted, as is ``share … --agent ppo
--record --project PROJECT``; :func:`resolve_record` turns either into what the command
reads (``args.record`` true, and ``args.project`` for a gym environment).

Examples
--------
>>> suggest_command("privatse", ["privatize", "bounds"])
'privatize'
>>> canonical_command("synthesize")
'synthesise'
>>> usage_field("argument --k: invalid float value: 'x'")
'--k'
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from core.common.errors import InputError

__all__ = ["COMMAND_ALIASES", "EXAMPLES", "HelpFormatter", "add_alias", "add_record_option",
           "add_old_option", "is_old_spelling",
           "canonical_command", "suggest_command", "looks_like_command", "finish_parser",
           "resolve_record", "take_notes", "typed_flag", "usage_field", "write_json_error",
           "wants_json", "BARE_RECORD"]

#: Other accepted spellings of a command (British and American), mapped to its name.
COMMAND_ALIASES = {"privatise": "privatize", "synthesize": "synthesise"}

#: The value of a bare ``--record`` (no PROJECT): record into the project the command reads.
BARE_RECORD = "\0record-into-the-input"

_NOTES = "_grammar_notes"      # {key: deprecation line}, printed once the command succeeded
_TYPED = "_grammar_typed"      # {new flag: old spelling typed}, for error messages
_READS = "_grammar_reads"      # dest of the positional a bare --record records into


def canonical_command(name: str) -> str:
    """The command a name or alias stands for (the name itself when unknown).

    Parameters
    ----------
    name : str
        What the user typed as the command.

    Returns
    -------
    str
    """
    return COMMAND_ALIASES.get(name, name)


def suggest_command(name: str, names: Iterable[str]) -> str | None:
    """The known command nearest to ``name`` (difflib), or None when none is close.

    Parameters
    ----------
    name : str
        An unknown command.
    names : iterable of str
        The commands (aliases included).

    Returns
    -------
    str or None
    """
    pool = sorted(set(names))
    close = difflib.get_close_matches(name.lower(), pool, n=1, cutoff=0.6)
    return canonical_command(close[0]) if close else None


def looks_like_command(word: str) -> bool:
    """Whether ``word`` (the first argument of ``app.py``) was meant as a command rather than
    a file to open: a bare word (letters, digits, ``-``, ``_``) that is not an existing path.

    Parameters
    ----------
    word : str

    Returns
    -------
    bool
    """
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", word)) and not os.path.exists(word)


# ----------------------------------------------------------------------- deprecated aliases
def _note(namespace: argparse.Namespace, key: str, line: str) -> None:
    notes = getattr(namespace, _NOTES, None)
    if notes is None:
        notes = {}
        setattr(namespace, _NOTES, notes)
    notes[key] = line


class _Alias(argparse.Action):
    """An old spelling: does what the new flag does and notes the deprecation."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, target: argparse.Action,
                 new: str, why: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.target, self.new, self.why = target, new, why

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        old = option_string or self.option_strings[0]
        _note(namespace, old, f"warning: {old} is deprecated{self.why}: write {self.new}")
        typed = getattr(namespace, _TYPED, None) or {}
        typed[self.new] = old
        setattr(namespace, _TYPED, typed)
        self.target(parser, namespace, values, self.new)


def add_alias(sp: argparse.ArgumentParser, old: str, new: str, why: str = "") -> None:
    """Accept ``old`` as a deprecated spelling of the flag ``new`` of ``sp``.

    The alias takes the same values (type, choices, count) into the same destination, is
    hidden from ``--help`` (``docs/formats-and-cli.md`` lists it) and, when used, adds a
    one-line deprecation warning.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser, where ``new`` is already defined.
    old, new : str
        The old and the current spelling (``"--alpha"``, ``"--q-lr"``).
    why : str
        Appended to "is deprecated", e.g. ``" here (--alpha is bounds' rule)"``.
    """
    target = sp._option_string_actions[new]
    kwargs: dict[str, Any] = {"dest": target.dest, "nargs": target.nargs,
                              "default": argparse.SUPPRESS, "help": argparse.SUPPRESS}
    for key in ("type", "choices", "metavar", "const"):
        if getattr(target, key) is not None and (key != "const" or target.nargs == "?"):
            kwargs[key] = getattr(target, key)
    sp.add_argument(old, action=_Alias, target=target, new=new, why=why, **kwargs)


class _OldOption(argparse._StoreAction):
    """A hidden option kept for an old spelling that has no one-flag equivalent (its
    deprecation is noted where the combination is resolved)."""


def add_old_option(sp: Any, flag: str, **kwargs: Any) -> None:
    """Keep ``flag`` working, hidden from ``--help`` (e.g. ``share … --project PROJECT``,
    now ``--record PROJECT``; :func:`resolve_record` notes the deprecation).

    Parameters
    ----------
    sp : argparse.ArgumentParser or argument group
        Where the flag was defined.
    flag : str
        The old flag.
    **kwargs
        As for ``add_argument`` (not ``help``).
    """
    sp.add_argument(flag, action=_OldOption, help=argparse.SUPPRESS, **kwargs)


def is_old_spelling(action: argparse.Action) -> bool:
    """Whether ``action`` is a hidden old spelling (:func:`add_alias`, :func:`add_old_option`).

    Parameters
    ----------
    action : argparse.Action

    Returns
    -------
    bool
    """
    return isinstance(action, (_Alias, _OldOption))


def typed_flag(args: argparse.Namespace | None, field: str | None) -> str | None:
    """The spelling the user typed for the flag ``field`` (an old alias, or ``field``).

    Parameters
    ----------
    args : argparse.Namespace or None
        The parsed command line.
    field : str or None
        A flag named by an error.

    Returns
    -------
    str or None
    """
    typed = getattr(args, _TYPED, None) or {}
    return typed.get(field, field) if field else field


def take_notes(args: argparse.Namespace) -> list[str]:
    """Remove the grammar's bookkeeping from ``args`` and return the deprecation lines.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    list of str
        One ``warning: …`` line per deprecated spelling used.
    """
    notes = vars(args).pop(_NOTES, None) or {}
    return list(notes.values())


# ---------------------------------------------------------------------------- --record
def add_record_option(sp: argparse.ArgumentParser, text: str, *, reads: str | None = None
                      ) -> None:
    """``--record PROJECT`` on a subcommand.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser.
    text : str
        The help text: what is recorded, and how.
    reads : str, optional
        The dest of the positional input when it may itself be a project: then PROJECT must
        be that file, and the deprecated bare ``--record`` (no PROJECT) records into it.
    """
    if reads is None:
        sp.add_argument("--record", metavar="PROJECT", default=None, help=text)
        return
    sp.add_argument("--record", metavar="PROJECT", nargs="?", const=BARE_RECORD,
                    default=None, help=text)
    sp.set_defaults(**{_READS: reads})


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def resolve_record(args: argparse.Namespace) -> None:
    """Turn ``--record`` of a command that reads a project into what the command expects:
    ``args.record`` true or false and, for ``share gym:ID``, ``args.project``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (changed in place).

    Raises
    ------
    InputError
        On ``--record`` when PROJECT is not the project the command reads.
    """
    reads = vars(args).pop(_READS, None)
    if reads is None:
        return
    value, source = args.record, str(getattr(args, reads))
    alias = getattr(args, "project", None) if reads == "env" else None
    if value is None:
        args.record = False
        return
    args.record = True
    if value == BARE_RECORD:
        if alias:
            _note(args, "--record", "warning: --record --project PROJECT is deprecated: write "
                                    "--record PROJECT")
        elif source.startswith("gym:"):
            raise InputError(f"{source} is not in a project: name the project to record in "
                             "with --record PROJECT", field="--record")
        else:
            _note(args, "--record", f"warning: --record without PROJECT is deprecated: write "
                                    f"--record {source}")
        return
    if reads == "env" and source.startswith("gym:"):
        args.project = value
    elif not _same_file(value, source):
        raise InputError(f"the run reads {source} and is recorded in the project it reads: "
                         f"give that project as {reads.upper()} and as --record PROJECT",
                         field="--record")


# ---------------------------------------------------------------------------- errors as JSON
def wants_json(argv: Sequence[str]) -> bool:
    """Whether ``--json`` is among the options of ``argv`` (before a ``--``).

    Parameters
    ----------
    argv : sequence of str

    Returns
    -------
    bool
    """
    for a in argv:
        if a == "--":
            return False
        if a == "--json":
            return True
    return False


def usage_field(message: str) -> str | None:
    """The flag or argument an argparse error message names (None when it names none).

    Parameters
    ----------
    message : str

    Returns
    -------
    str or None
    """
    m = re.search(r"argument ([^\s:]+)", message) or \
        re.search(r"(?:arguments are required|unrecognized arguments): ([^\s,]+)", message)
    if not m:
        return None
    return m.group(1).split("/")[-1]


def write_json_error(out: TextIO, code: int, message: str, field: str | None = None,
                     file: str | None = None, extra: dict[str, Any] | None = None) -> None:
    """``{"error": {"exit", "message", "field"[, "file"]}}`` as the one JSON object on stdout.

    Parameters
    ----------
    out : TextIO
        Standard output.
    code : int
        The exit code.
    message : str
        What is wrong (without the field, which has its own key).
    field : str or None
        The flag, field or argument at fault (null when none is).
    file : str or None
        The file at fault, when known.
    extra : dict, optional
        Keys beside ``error`` (a failed sweep's partial result).
    """
    from core.common.jsonable import dumps

    err: dict[str, Any] = {"exit": code, "message": message, "field": field}
    if file:
        err["file"] = file
    out.write(dumps({**(extra or {}), "error": err}) + "\n")


# ---------------------------------------------------------------------------- help screens
class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that an epilog starting with "Example" keeps its lines
    (the commands are shown as typed)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("Example"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


#: One example per command (the key is the command as typed after ``privplan``); shown at
#: the end of its ``--help``. The first words of each line name the command.
EXAMPLES: dict[str, str] = {
    "": "privplan bounds assets/examples/four_startups.mdp.json --k 1000\n"
        "privplan plan assets/examples/fig41.map.json --origin a2 --goal-agent f --epsilon 0.5",
    "dirichlet": "privplan dirichlet --k 100 --eta 0.1 --w 3 --b 0.1 --delta 1e-5",
    "privatize": "privplan privatize assets/examples/four_startups.mdp.json --k 1000 --seed 1 "
                 "-o private.mdp.json",
    "bounds": "privplan bounds private.mdp.json --k 1000 --beta 0.05\n"
              "privplan bounds project.privplan.json --mdp mdp-1 --k 1000 --seed 1 "
              "--record project.privplan.json",
    "sweep": "privplan sweep assets/examples/four_startups.mdp.json --k 10,100,1000 --runs 20 "
             "--seed 7",
    "synthesise": "privplan synthesise assets/examples/four_startups.mdp.json --method lp "
                  "-o policy.json",
    "plan": "privplan plan assets/examples/fig41.map.json --origin a2 --goal-agent f "
            "--epsilon 0.5 --seed 1",
    "plan-bench": "privplan plan-bench B1 --worlds 5 --seed 1",
    "budget": "privplan budget assets/examples/study-feasible.plan.json --allocate optimise",
    "advise": "privplan advise --preset exp1 --strategy dp --epsilon 0.4 --epochs 100 --seed 3",
    "audit": "privplan audit laplace --epsilon 1 --sensitivity 1 --seed 1",
    "audit laplace": "privplan audit laplace --epsilon 1 --sensitivity 1 --samples 20000 "
                     "--seed 1",
    "audit exponential": "privplan audit exponential --epsilon 1 --seed 1",
    "audit dirichlet": "privplan audit dirichlet --k 100 --eta 0.1 --w 3 --b 0.1 --delta 1e-5 "
                       "--seed 1",
    "audit sharing": "privplan audit sharing --k 50 --m 4 --eta 0.05 --lb 0.05 --delta 1e-3 "
                     "--seed 1",
    "audit advising": "privplan audit advising --epsilon 0.5 --seed 1",
    "audit logistics": "privplan audit logistics --epsilon 0.5 --seed 1",
    "audit gaussian": "privplan audit gaussian --mu 1 --delta 1e-4 --seed 1",
    "share": "privplan share gym:FrozenLake-v1 --delta 0.01 --seeds 2 --iterations 50 --seed 1",
    "accountant": "privplan accountant dpsgd --sigma 1.1 --sample-rate 0.01 --steps 1000 "
                  "--delta 1e-5",
    "accountant dpsgd": "privplan accountant dpsgd --sigma 1.1 --sample-rate 0.01 --steps 1000 "
                        "--delta 1e-5",
    "mia": "privplan mia --data adult.csv --defense dpsgd --epsilon 1 --seed 1",
    "drl": "privplan drl --random 8 --defense dpdrl --epsilon 1 --episodes 300 --seed 1",
    "comarl": "privplan comarl --agents 3 --dp --sigma 1 --episodes 200 --seed 1",
    "design": "privplan design assets/examples/four_startups.mdp.json --epsilon 1 --delta 1e-5",
    "import": "privplan import model.tra model.lab model.srew -o model.mdp.json --horizon 10",
    "export": "privplan export private.mdp.json --format prism-interval --k 1000 -o robust",
    "advise-bench": "privplan advise-bench --experiment 1 --seeds 5 --seed 1",
    "report": "privplan report project.privplan.json -o report.pdf",
}


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for sp in action.choices.values():
                if id(sp) not in seen:  # an alias maps to the same parser
                    seen.add(id(sp))
                    out.append(sp)
    return out


def finish_parser(parser: argparse.ArgumentParser, prog: str) -> None:
    """Give ``parser`` and every subcommand's parser (nested ones too) its example epilog
    (:data:`EXAMPLES`) and the :class:`HelpFormatter`.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``privplan`` parser with its subcommands added.
    prog : str
        The program name that starts each parser's ``prog``.
    """
    key = parser.prog[len(prog):].strip()
    text = EXAMPLES.get(key)
    if text is not None:
        label = "Examples:" if "\n" in text else "Example:"
        parser.epilog = label + "\n" + "\n".join("  " + line for line in text.splitlines())
    parser.formatter_class = HelpFormatter
    for sp in _subparsers(parser):
        finish_parser(sp, prog)
