"""Command-line help that prints each option's real default, taken from the parser itself.

Help strings never spell a default by hand (it drifts from the real one); instead
:class:`HelpParser` formats every option that takes a value and has a default with
``(default: X)`` after its help, X being the parser's own default as a user would type it: a
string default is shown as is (argparse converts it with the option's ``type``, so a list option
takes ``default="0,4"``), a list or tuple joined with commas. Options without a default
(``None``), flags (``store_true``) and suppressed defaults show none; where leaving such an option
out means something worth saying, its help says so in words ("if omitted: ...").

Sub-commands inherit the parser class (argparse's ``add_subparsers`` uses ``type(parser)``), so
the ``trtsafe-lab`` parser made with :class:`HelpParser` formats every subcommand's help this way.
Stdlib only.
"""

from __future__ import annotations

import argparse
from typing import Any

# Positionals with these nargs may be left out, so their default is worth showing.
_OPTIONAL_POSITIONAL = (argparse.OPTIONAL, argparse.ZERO_OR_MORE)


def shown_default(action: argparse.Action) -> str | None:
    """The default ``action``'s help shows (as a user would type it), or None when it shows
    none: no help, no value taken (flags, ``--help``, ``--version``), a None or suppressed
    default, or a positional that must be given."""
    default: Any = action.default
    if action.help in (None, argparse.SUPPRESS) or action.nargs == 0:
        return None
    if default is None or default is argparse.SUPPRESS or isinstance(default, bool):
        return None
    if not action.option_strings and action.nargs not in _OPTIONAL_POSITIONAL:
        return None
    if isinstance(default, (list, tuple)):
        return ",".join(str(item) for item in default)
    return str(default)


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with ``(default: X)`` appended to the help of each action for which
    :func:`shown_default` gives X."""

    def _expand_help(self, action: argparse.Action) -> str:
        text = super()._expand_help(action)
        default = shown_default(action)
        return text if default is None else f"{text} (default: {default})"


class HelpParser(argparse.ArgumentParser):
    """An ArgumentParser whose help shows each option's real default (see the module doc);
    its subcommands' parsers are HelpParsers too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)
