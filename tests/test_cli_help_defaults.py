"""Every option's help shows the parser's real default, once: never a hand-spelled one that can
drift, never ``(default: None)``, never twice. Covers every subcommand of ``trtsafe-lab`` and the
package's other command lines (``python -m trtsafe_lab.replay``, ``python -m
trtsafe_lab.trtexec._tables.derive``)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator

import pytest

from trtsafe_lab import replay
from trtsafe_lab.cli import build_parser
from trtsafe_lab.trtexec._tables import derive

PARSERS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "trtsafe-lab": build_parser,
    "python -m trtsafe_lab.replay": replay.build_parser,
    "python -m trtsafe_lab.trtexec._tables.derive": derive.build_parser,
}
DEFAULT_WORD = re.compile(r"\bdefault\b", re.IGNORECASE)


def _parsers(parser: argparse.ArgumentParser, words: str
             ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{words} {name}")


def _entry(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The action's entry in ``--help`` exactly as the parser prints it, whitespace joined."""
    formatter = parser._get_formatter()
    formatter.add_argument(action)
    return " ".join(formatter.format_help().split())


def _real_default(action: argparse.Action) -> str | None:
    """The default a user leaves in place by omitting the option, as they would type it; None
    where there is none to show (flags, None defaults, positionals that must be given)."""
    value = action.default
    takes_value = action.nargs != 0
    optional = bool(action.option_strings) or action.nargs in ("?", "*")
    if not takes_value or not optional or value is None or value is argparse.SUPPRESS:
        return None
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _entries() -> Iterator[tuple[str, argparse.Action, str]]:
    for program, make in PARSERS.items():
        for words, parser in _parsers(make(), program):
            for action in parser._actions:
                if action.help and action.help is not argparse.SUPPRESS and not isinstance(
                        action, argparse._SubParsersAction):
                    yield words, action, _entry(parser, action)


def test_every_shown_default_is_the_parser_default_once() -> None:
    wrong = []
    entries = list(_entries())
    for words, action, entry in entries:
        real = _real_default(action)
        shown = DEFAULT_WORD.findall(entry)
        if real is None and shown:
            wrong.append(f"{words}: {entry!r} names a default but the parser has none "
                         "(say 'if omitted: ...')")
        elif real is not None and (len(shown) != 1 or f"(default: {real})" not in entry):
            wrong.append(f"{words}: {entry!r} should show '(default: {real})' once")
    assert wrong == []
    assert len(entries) > 80  # every subcommand was walked


def test_help_shows_defaults_and_no_none() -> None:
    text = " ".join(" ".join(p.format_help().split())
                    for _, p in _parsers(build_parser(), "trtsafe-lab"))
    assert "(default: None)" not in text and "(default: False)" not in text
    assert "(default: out/sweep)" in text and "(default: 0,1,2,4,-1)" in text


@pytest.mark.parametrize(("argv", "dest", "value"), [
    (["profile", "reference"], "aux", [0, 4]),
    (["profile", "sweep", "reference"], "aux", [0, 1, 2, 4]),
    (["profile", "sweep", "engines"], "values", [0, 1, 2, 4, -1]),
    (["profile", "sweep", "engines"], "out", "out/sweep"),
    (["profile", "trtexec", "e.engine"], "out", "out/profile"),
    (["profile", "reference", "--aux", "1,2"], "aux", [1, 2]),
])
def test_list_defaults_are_typed_as_the_user_types_them(argv: list[str], dest: str,
                                                        value: object) -> None:
    """A list option's default is the text a user would type ("0,4"); argparse converts it
    with the option's type, so the program gets the same list as from the command line."""
    assert getattr(build_parser().parse_args(argv), dest) == value


def _option(words: str, option: str) -> argparse.Action:
    parsers = dict(_parsers(build_parser(), "trtsafe-lab"))
    return next(a for a in parsers[words]._actions if option in a.option_strings)


@pytest.mark.parametrize(("option", "defaults"), [
    ("--out", {"profile reference": "out/profile", "profile sweep reference": "out/profile",
               "profile sweep engines": "out/sweep", "profile engine": "out/profile",
               "profile trtexec": "out/profile"}),
    ("--tool", {"build": "trtexec", "profile sweep engines": "trtexec",
                "profile trtexec": "trtexec"}),
    ("--trt-version", {"build": None, "profile sweep engines": None, "profile trtexec": None}),
    ("--graph", {"profile reference": False, "profile sweep reference": False,
                 "profile engine": False}),
    ("--trace", {"profile reference": False, "profile sweep reference": False,
                 "profile engine": False}),
])
def test_shared_options_are_one_definition(option: str, defaults: dict[str, object]) -> None:
    """--out and the timing switches of the profile subcommands, --tool/--trt-version of the
    commands that run trtexec: the same everywhere (one definition); each keeps its default."""
    actions = {f"trtsafe-lab {words}": _option(f"trtsafe-lab {words}", option)
               for words in defaults}
    assert {w.removeprefix("trtsafe-lab "): a.default for w, a in actions.items()} == defaults
    assert len({(a.help, a.metavar, a.type) for a in actions.values()}) == 1
