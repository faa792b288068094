"""Check files and folders: the one entry point behind the CLI, the DataFrame and the demo."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from trtsafe_lab.migrate.ci_yaml import YamlSyntaxError, analyse_yaml
from trtsafe_lab.migrate.cmake import CMakeSyntaxError, analyse_cmake
from trtsafe_lab.migrate.commands import CommandFacts, unshipped_companions
from trtsafe_lab.migrate.makefile import analyse_makefile, analyse_shell
from trtsafe_lab.migrate.python_ast import analyse_python
from trtsafe_lab.migrate.rules import ERROR, FINDING_COLUMNS, MigrationFinding, make_finding
from trtsafe_lab.migrate.walker import file_kind, walk

if TYPE_CHECKING:
    import pandas as pd


def _read(path: Path, shown: str) -> tuple[bytes | None, MigrationFinding | None]:
    try:
        data = path.read_bytes()
    except OSError as err:
        return None, make_finding("file-unreadable", shown, 0, f"cannot read: {err.strerror}")
    if b"\x00" in data[:8192]:
        return None, make_finding("file-unreadable", shown, 0, "binary content (NUL bytes)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return None, make_finding("file-unreadable", shown, line, "not UTF-8 text")
    return data, None


def analyse_file(path: Path, shown: str | None = None, kind: str | None = None) -> CommandFacts:
    """Findings and facts for one file; ``shown`` is the name findings report (default: path).

    Unreadable files give a ``file-unreadable`` finding; files that do not parse give
    ``file-unparsable``; neither raises.
    """
    shown = shown if shown is not None else str(path)
    data, problem = _read(path, shown)
    if problem is not None or data is None:
        return CommandFacts(findings=[problem] if problem else [])
    kind = kind or file_kind(path, data[:256])
    text = data.decode("utf-8")
    try:
        if kind == "cpp":
            from trtsafe_lab.migrate.cpp import analyse_cpp

            return analyse_cpp(data, shown)
        if kind == "python":
            return analyse_python(text, shown)
        if kind == "shell":
            return analyse_shell(text, shown)
        if kind == "make":
            return analyse_makefile(text, shown)
        if kind == "cmake":
            return analyse_cmake(text, shown)
        if kind == "yaml":
            return analyse_yaml(text, shown)
    except SyntaxError as err:
        detail = f"Python syntax error: {err.msg}"
        return CommandFacts(
            findings=[make_finding("file-unparsable", shown, err.lineno or 0, detail)])
    except (CMakeSyntaxError, YamlSyntaxError) as err:
        detail = f"{kind} syntax error: {err}"
        return CommandFacts(findings=[make_finding("file-unparsable", shown, err.line, detail)])
    detail = "not a kind of file the checker reads (C/C++, Python, shell, Makefile, CMake, YAML)"
    return CommandFacts(findings=[make_finding("file-unparsable", shown, 0, detail)])


def iter_files(paths: Iterable[str | Path]) -> list[tuple[Path, bool]]:
    """(file, named explicitly) for every path; folders are walked.

    Raises FileNotFoundError naming the first path that does not exist.
    """
    out: list[tuple[Path, bool]] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            out.extend((found, False) for found in walk(path))
        elif path.exists():
            out.append((path, True))
        else:
            raise FileNotFoundError(
                f"{path}: no such file or folder; give source files, build scripts or folders"
            )
    return out


def check_paths(paths: Iterable[str | Path]) -> list[MigrationFinding]:
    """All findings for ``paths`` (files or folders), sorted by file and line.

    ``companion-so-not-shipped`` is decided last: an engine counts as a safe engine when its
    name says so or when any file of the scan builds safe engines or uses the safety runtime.
    """
    results: list[tuple[str, CommandFacts]] = []
    for path, _ in iter_files(paths):
        results.append((str(path), analyse_file(path)))
    safety = any(facts.safety for _, facts in results)
    companions: dict[str, str] = {}
    for _, facts in results:
        companions.update(facts.companions)
    findings: set[MigrationFinding] = set()
    for shown, facts in results:
        findings.update(facts.findings)
        findings.update(unshipped_companions(shown, facts.ship_steps, companions, safety))
    return sorted(findings, key=lambda f: (f.file, f.line, f.rule, f.message))


def has_errors(findings: Iterable[MigrationFinding]) -> bool:
    return any(f.severity == ERROR for f in findings)


def findings_frame(findings: Iterable[MigrationFinding]) -> pd.DataFrame:
    """Findings as a DataFrame with columns ``file``, ``line`` (1-based; 0 = whole file),
    ``rule`` (rule id), ``severity`` (``error``/``warning``), ``message`` and ``fix``."""
    import pandas as pd

    rows = [f.as_dict() for f in findings]
    return pd.DataFrame(rows, columns=list(FINDING_COLUMNS)).astype({"line": "int64"})


def migration_findings(*paths: str | Path) -> pd.DataFrame:
    """Check ``paths`` (files or folders) and return the findings table (see
    :func:`findings_frame` for the columns). The notebook entry point."""
    return findings_frame(check_paths(paths))
