"""Arguments the ``trtsafe-lab profile`` subcommands share, defined once: ``positive_int`` and
``non_negative_int`` (argparse types), ``--out`` (the folder the run directories go under; each
subcommand keeps its own default) and the timing options of a timed run (defaults:
:class:`TimingConfig`'s). Stdlib only at import time."""

from __future__ import annotations

import argparse

from trtsafe_lab.profile.harness import TimingConfig


def _int_at_least(text: str, minimum: int) -> int:
    value = int(text)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (the profile CLI's counts)."""
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0 (``--warmup``)."""
    return _int_at_least(text, 0)


def add_out_argument(parser: argparse.ArgumentParser, default: str) -> None:
    """Add ``--out DIR`` (default ``default``): the folder the subcommand's run directories
    are written under (made when missing)."""
    parser.add_argument("--out", metavar="DIR", default=default,
                        help="folder the run directories are written under, made when missing")


def add_timing_arguments(parser: argparse.ArgumentParser, passes: str, sample: str) -> None:
    """Add ``--graph``, ``--warmup``, ``--iterations`` and ``--trace`` of a timed run; ``passes``
    names one pass ("forward passes", "inferences"), ``sample`` says what one timed sample
    covers."""
    parser.add_argument("--graph", action="store_true",
                        help="capture one pass in a CUDA graph and time its replays")
    parser.add_argument("--warmup", type=non_negative_int, default=TimingConfig.warmup,
                        help=f"untimed {passes} before timing")
    parser.add_argument("--iterations", type=positive_int, default=TimingConfig.iterations,
                        help=f"timed samples per run; {sample}")
    parser.add_argument("--trace", action="store_true",
                        help="also record a CUPTI kernel trace (needs cupti-python)")
