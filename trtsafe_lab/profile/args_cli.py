"""Arguments the ``trtsafe-lab profile`` subcommands share, defined once: ``positive_int`` (an
argparse type) and ``--out`` (the folder the run directories go under; each subcommand keeps its
own default). Stdlib only."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (the profile CLI's counts)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def add_out_argument(parser: argparse.ArgumentParser, default: str) -> None:
    """Add ``--out DIR`` (default ``default``): the folder the subcommand's run directories
    are written under (made when missing)."""
    parser.add_argument("--out", metavar="DIR", default=default,
                        help="folder the run directories are written under, made when missing")
