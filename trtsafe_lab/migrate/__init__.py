"""The 10.x -> 11.x safety migration checker.

Reads C/C++ (tree-sitter), Python (ast), shell scripts, Makefiles, CMake and CI YAML, and reports
places that rely on TensorRT 10.x behaviour with file, line, rule id, severity, message and fix.

>>> from trtsafe_lab.migrate import migration_findings
>>> df = migration_findings("path/to/project")  # doctest: +SKIP
"""

from __future__ import annotations

from trtsafe_lab.migrate.check import (
    check_paths,
    findings_frame,
    has_errors,
    migration_findings,
)
from trtsafe_lab.migrate.rules import FINDING_COLUMNS, RULES, MigrationFinding, Rule, rules_frame

__all__ = [
    "FINDING_COLUMNS",
    "RULES",
    "MigrationFinding",
    "Rule",
    "check_paths",
    "findings_frame",
    "has_errors",
    "migration_findings",
    "rules_frame",
]
