"""Streaming failure scan of a log file (memory bounded)."""

from __future__ import annotations

import os
from typing import Any

from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.source import iter_lines


def scan_failures(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Failure rows of the log file at ``path``."""
    parser = LogParser(keep_events=False)
    parser.feed_lines(iter_lines(path))
    parser.finish()
    return parser.failures
