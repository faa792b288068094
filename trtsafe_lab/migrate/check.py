"""Check files and folders: the one entry point behind the CLI, the DataFrame and the demo."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from trtsafe_lab._optional import available
from trtsafe_lab.errors import UsageError
from trtsafe_lab.migrate.ci_yaml import YamlSyntaxError, analyse_yaml
from trtsafe_lab.migrate.cmake import analyse_cmake
from trtsafe_lab.migrate.commands import CommandFacts, PartialParse, unshipped_companions
from trtsafe_lab.migrate.limits import MAX_FILE_BYTES, InputLimitError
from trtsafe_lab.migrate.makefile import analyse_makefile, analyse_shell
from trtsafe_lab.migrate.python_ast import analyse_python
from trtsafe_lab.migrate.rules import ERROR, FINDING_COLUMNS, MigrationFinding, make_finding
from trtsafe_lab.migrate.walker import file_kind, walk

if TYPE_CHECKING:
    import pandas as pd


def _read(path: Path, shown: str) -> tuple[bytes | None, MigrationFinding | None]:
    """The file's bytes, or the finding that says why it is not checked.

    Only regular files are opened (a FIFO would block, ``/dev/zero`` never ends), and only up
    to :data:`~trtsafe_lab.migrate.limits.MAX_FILE_BYTES`.
    """
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then judges what was
        # opened (no window between a check and the open).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            info = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            detail = (
                "not a regular file (a folder, FIFO, device or socket); only regular files "
                "are read"
            )
            return None, make_finding("file-unreadable", shown, 0, detail)
        with os.fdopen(fd, "rb") as handle:
            if info.st_size > MAX_FILE_BYTES:
                return None, _too_large(shown, info.st_size)
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        return None, make_finding("file-unreadable", shown, 0, f"cannot read: {err.strerror}")
    if len(data) > MAX_FILE_BYTES:  # grew after stat
        return None, _too_large(shown, len(data))
    if b"\x00" in data[:8192]:
        return None, make_finding("file-unreadable", shown, 0, "binary content (NUL bytes)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return None, make_finding("file-unreadable", shown, line, "not UTF-8 text")
    return data, None


def _too_large(shown: str, size: int) -> MigrationFinding:
    detail = f"{size:,} bytes, over the {MAX_FILE_BYTES // 2**20} MiB limit; not checked"
    return make_finding("file-over-limit", shown, 0, detail)


def analyse_file(
    path: Path,
    shown: str | None = None,
    kind: str | None = None,
    macros: dict[str, bool] | None = None,
) -> CommandFacts:
    """Findings and facts for one file; ``shown`` is the name findings report (default: path);
    ``macros`` the attribute-like C/C++ macros of the scan (default: the file's own).

    Unreadable files give a ``file-unreadable`` finding; files that do not parse give
    ``file-unparsable``; neither raises.
    """
    shown = shown if shown is not None else str(path)
    return _analyse_read(path, _read(path, shown), shown, kind, macros)


def _analyse_read(path: Path, read: tuple[bytes | None, MigrationFinding | None], shown: str,
                  kind: str | None, macros: dict[str, bool] | None) -> CommandFacts:
    """:func:`analyse_file` on what :func:`_read` returned for ``path`` (its bytes or why not)."""
    data, problem = read
    if problem is not None or data is None:
        return CommandFacts(findings=[problem] if problem else [])
    kind = kind or file_kind(path, data[:256])
    text = data.decode("utf-8")
    try:
        if kind == "cpp":
            from trtsafe_lab.migrate.cpp import analyse_cpp

            return analyse_cpp(data, shown, macros)
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
            findings=[make_finding("file-unparsable", shown, err.lineno or 0, detail)]
        )
    except YamlSyntaxError as err:
        detail = f"{kind} syntax error: {err}"
        return CommandFacts(findings=[make_finding("file-unparsable", shown, err.line, detail)])
    except InputLimitError as err:
        return CommandFacts(
            findings=[make_finding("file-over-limit", shown, err.line, f"{err}; not checked")]
        )
    except RecursionError:
        # Backstop: every front end bounds its own nesting; this turns one that was missed into
        # a finding (Python's recursion limit bounds the work) instead of a traceback.
        detail = "nesting deeper than the checker follows (Python's recursion limit); not checked"
        return CommandFacts(findings=[make_finding("file-over-limit", shown, 0, detail)])
    detail = "not a kind of file the checker reads (C/C++, Python, shell, Makefile, CMake, YAML)"
    return CommandFacts(findings=[make_finding("file-unparsable", shown, 0, detail)])


def display_name(path: Path) -> str:
    """``path`` as text that any output can print: bytes of a file name that are not UTF-8
    (kept by Python as surrogates) are shown as ``\\xff`` escapes instead of failing to encode."""
    return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def iter_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files to check for ``paths``: a file as given, a folder walked (symlinked folders
    inside are not followed, so a link loop ends).

    Raises FileNotFoundError naming the first path that does not exist, and
    :class:`~trtsafe_lab.errors.UsageError` for an empty path or one the system cannot look up
    (name too long, a symbolic-link loop, no permission).
    """
    out: list[Path] = []
    for item in paths:
        if not str(item):
            raise UsageError("an empty path was given; name a file or folder ('.' for here)")
        path = Path(item)
        try:
            info = path.stat()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"{display_name(path)}: no such file or folder; give source files, build "
                "scripts or folders"
            ) from None
        except OSError as err:
            raise UsageError(
                f"{display_name(path)}: cannot be looked up ({err.strerror}); give an existing "
                "file or folder"
            ) from err
        if stat.S_ISDIR(info.st_mode):
            out.extend(walk(path))
        else:
            out.append(path)  # not a regular file: _read reports it
    return out


def scan_macros(sources: Iterable[bytes]) -> dict[str, bool] | None:
    """Attribute-like macros defined in the C/C++ ``sources`` of a scan (``TRT_DEPRECATED`` in
    NvInferRuntimeBase.h blanks it in NvInfer.h too); None when there are none to read or
    tree-sitter is missing (the C/C++ front end then reports that itself)."""
    sources = list(sources)
    if not sources or not available("tree_sitter_cpp"):
        return None
    from trtsafe_lab.migrate.cpp_macros import attribute_macros, define_lines

    return attribute_macros(define_lines(data) for data in sources)


def check_paths(paths: Iterable[str | Path]) -> list[MigrationFinding]:
    """All findings for ``paths`` (files or folders), sorted by file and line.

    Each file is read once. The C/C++ files are read first and kept until they are checked
    (their ``#define`` lines decide the macros of every one of them): memory up to their total
    size, each at most :data:`~trtsafe_lab.migrate.limits.MAX_FILE_BYTES`.
    ``companion-so-not-shipped`` is decided last: an engine counts as a safe engine when its
    name says so or when any file of the scan builds safe engines or uses the safety runtime.
    """
    files = iter_files(paths)
    cpp_read = {path: _read(path, display_name(path)) for path in files
                if file_kind(path) == "cpp"}
    macros = scan_macros(data for data, _ in cpp_read.values() if data is not None)
    results: list[tuple[str, CommandFacts]] = []
    for path in files:
        shown = display_name(path)
        read = cpp_read.pop(path, None)
        results.append((shown, analyse_file(path, shown, macros=macros) if read is None
                        else _analyse_read(path, read, shown, None, macros)))
    safety = any(facts.safety for _, facts in results)
    companions: dict[str, str] = {}
    for _, facts in results:
        companions.update(facts.companions)
    findings: set[MigrationFinding] = set()
    for shown, facts in results:
        findings.update(facts.findings)
        findings.update(unshipped_companions(shown, facts.ship_steps, companions, safety))
    findings.update(partly_parsed([f for _, facts in results for f in facts.partial]))
    return sorted(findings, key=lambda f: (f.file, f.line, f.rule, f.message))


def partly_parsed(notices: list[PartialParse], shown: int = 8) -> list[MigrationFinding]:
    """``file-unparsable`` for files parsed only in part: one finding per scan.

    A single such file gets its own finding at its first error. Several give one finding,
    placed at the first of them, that lists up to ``shown`` files with their first error line
    and number of places, so that macro-heavy headers (NVIDIA's own) do not drown a report.
    """
    if not notices:
        return []
    notices = sorted(notices, key=lambda n: (n.file, n.line))
    first = notices[0]
    if len(notices) == 1:
        detail = f"{first.language} syntax not understood at line {first.line}"
        detail += f" ({first.places} place(s))"
        return [make_finding("file-unparsable", first.file, first.line, detail)]
    listed = [f"{n.file}:{n.line} ({n.places} place(s))" for n in notices]
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    detail = (
        f"syntax not understood in {len(notices)} files (tree-sitter recovered and checked the "
        "rest of each): " + ", ".join(listed[:shown]) + more
    )
    return [make_finding("file-unparsable", first.file, first.line, detail)]


def has_errors(findings: Iterable[MigrationFinding]) -> bool:
    """True when any finding has ``error`` severity (``trtsafe-lab migrate`` then exits 1)."""
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
