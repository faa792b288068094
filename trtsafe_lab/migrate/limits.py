"""Resource bounds of the migration checker: file size, variable expansion, YAML aliases, depth.

A few hundred bytes of CMake, Make, shell or YAML can ask for gigabytes (a "billion laughs");
a deeply nested file can exhaust Python's recursion. Every front end works within these limits
and reports a limit it reached as a ``file-over-limit`` finding instead of running out of memory,
time or stack. Each limit is far above what real build files and sources need.
"""

from __future__ import annotations

from dataclasses import dataclass

from trtsafe_lab.migrate.rules import MigrationFinding, make_finding

# A source or build file larger than this is not read (a 50 MB C++ file needs ~3 GB of syntax tree).
MAX_FILE_BYTES = 8 * 1024 * 1024
# Characters that variable expansion may produce in one file (all expansions together).
MAX_EXPANDED_CHARS = 4_000_000
# Words one variable (a shell array, a CMake list, a Make variable) may hold.
MAX_VARIABLE_WORDS = 10_000
# YAML: alias references per file, and nodes of the document with every alias expanded.
MAX_YAML_ALIASES = 1_000
MAX_YAML_NODES = 200_000
# Nesting (YAML collections, and the checker's own walks) followed before giving up.
MAX_NESTING = 200


class InputLimitError(ValueError):
    """A file exceeds one of the checker's limits; ``line`` is where (0: the whole file)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class ExpansionBudget:
    """Characters variable expansion may still produce in one file.

    Shared by every variable table of a file (copies share it). :meth:`charge` returns False
    once the budget is spent; expansion then leaves references unexpanded, and the front end
    reports :meth:`findings`: a ``file-over-limit`` finding at ``line``, where it ran out.
    """

    left: int = MAX_EXPANDED_CHARS
    line: int = 0
    reason: str = ""

    @property
    def exceeded(self) -> bool:
        return bool(self.reason)

    def charge(self, chars: int, line: int) -> bool:
        if self.exceeded:
            return False
        self.left -= chars
        if self.left < 0:
            self.stop(
                f"variable expansion would produce over {MAX_EXPANDED_CHARS:,} characters", line
            )
            return False
        return True

    def stop(self, reason: str, line: int) -> None:
        """Record the first limit reached (later ones are consequences of it)."""
        if not self.exceeded:
            self.reason, self.line = reason, line

    def findings(self, path: str) -> list[MigrationFinding]:
        """The ``file-over-limit`` finding for ``path`` when a limit was reached, else none."""
        if not self.exceeded:
            return []
        detail = f"{self.reason}; the rest was checked without expanding further"
        return [make_finding("file-over-limit", path, self.line, detail)]
