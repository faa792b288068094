"""Which files the checker reads, and as what kind."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

CPP_SUFFIXES = {
    ".c",
    ".cc",
    ".cpp",
    ".cxx",
    ".c++",
    ".h",
    ".hh",
    ".hpp",
    ".hxx",
    ".cu",
    ".cuh",
    ".inl",
}
SHELL_SUFFIXES = {".sh", ".bash", ".ksh", ".zsh"}
YAML_SUFFIXES = {".yml", ".yaml"}
MAKE_NAMES = {"makefile", "gnumakefile"}
SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".tox",
    ".mypy_cache",
}
KEEP_HIDDEN_DIRS = {".github", ".gitlab", ".ci", ".circleci", ".buildkite"}
KINDS = ("cpp", "python", "shell", "make", "cmake", "yaml")


def file_kind(path: Path, head: bytes = b"") -> str | None:
    """'cpp', 'python', 'shell', 'make', 'cmake', 'yaml', or None for a file the checker skips.

    ``head`` (the first bytes) lets an extension-less script be recognised by its ``#!`` line.
    """
    name = path.name.lower()
    suffix = path.suffix.lower()
    if suffix in CPP_SUFFIXES:
        return "cpp"
    if suffix == ".py":
        return "python"
    if suffix in SHELL_SUFFIXES:
        return "shell"
    if name in MAKE_NAMES or suffix == ".mk":
        return "make"
    if name == "cmakelists.txt" or suffix == ".cmake":
        return "cmake"
    if suffix in YAML_SUFFIXES:
        return "yaml"
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].split()
        if words and words[0].endswith(b"/env") and len(words) > 1:
            words = words[1:]
        program = words[0].rsplit(b"/", 1)[-1] if words else b""
        if program.startswith(b"python"):
            return "python"
        if program in (b"sh", b"bash", b"dash", b"ksh", b"zsh"):
            return "shell"
    return None


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(256)
    except OSError:
        return b""


def walk(root: Path) -> Iterator[Path]:
    """Files under ``root`` the checker reads, sorted; VCS, virtualenv and cache folders skipped."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS and (not d.startswith(".") or d in KEEP_HIDDEN_DIRS)
        )
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_file() and file_kind(path, _head(path) if "." not in name else b""):
                yield path
