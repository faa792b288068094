"""Errors shared by every job (a low module: it imports nothing from the package).

``UsageError`` is bad input from the user (a missing or unreadable path, a flag the tool would
reject, arguments that do not fit together). The command line prints it without a traceback and
exits with status 2; library callers get it as an ordinary exception.
"""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the user: printed without a traceback, exit code 2."""
