"""Paths from the command line, checked before any work starts.

One function per role — :func:`input_file`, :func:`input_dir`, :func:`input_path` (a file or a
folder), :func:`output_dir`, :func:`output_file` (and :func:`created_output_dir`,
:func:`created_output_file`, which also create the missing folders) — each returns the path or
raises :class:`~trtsafe_lab.errors.UsageError` with one message naming the path, what is wrong
and what to do. Checked: empty names, names longer than the file system allows (a component over
NAME_MAX, the whole over PATH_MAX), symlink loops, missing paths, the wrong kind (a folder where
a file is wanted and back), FIFOs, sockets and devices (reading one blocks or never ends), read
and write permission, and for outputs a parent that is a file or cannot be written.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from trtsafe_lab.errors import UsageError

PATH_MAX = 4096


def shown(path: str | os.PathLike[str]) -> str:
    """``path`` for a message: quoted with escapes when it holds control characters or bytes
    that are not valid UTF-8 (a newline in a name would otherwise split the message)."""
    text = os.fspath(path)
    if text.isprintable() and not any(0xDC80 <= ord(c) <= 0xDCFF for c in text):
        return text
    return repr(text)


def _name_max(path: Path) -> int:
    folder = path.parent
    while True:
        try:
            return int(os.pathconf(folder, "PC_NAME_MAX"))
        except (OSError, ValueError):
            if folder == folder.parent:
                return 255
            folder = folder.parent


def _check_name(raw: str, role: str) -> Path:
    if raw == "":
        raise UsageError(f"{role}: an empty path was given; name a file or folder "
                         "(use . for the current folder)")
    path = Path(raw)
    if len(os.fsencode(raw)) > PATH_MAX:
        raise UsageError(f"{role} {shown(raw)[:80]}...: the path is longer than {PATH_MAX} "
                         "bytes; use a shorter one")
    limit = _name_max(path)
    for part in path.parts:
        if len(os.fsencode(part)) > limit:
            raise UsageError(f"{role} {shown(raw)}: the name {shown(part)[:40]}... is longer "
                             f"than the {limit} bytes the file system allows; rename it")
    return path


def _stat(path: Path, role: str) -> os.stat_result | None:
    """``os.stat`` of ``path`` (symlinks followed); None if it does not exist."""
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except NotADirectoryError as err:
        raise UsageError(f"{role} {shown(path)}: a part of the path is a file, not a folder"
                         ) from err
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UsageError(f"{role} {shown(path)}: a loop of symbolic links; fix or remove "
                             "the link") from err
        if err.errno == errno.ENAMETOOLONG:
            raise UsageError(f"{role} {shown(path)}: the name is too long for the file system"
                             ) from err
        raise UsageError(f"{role} {shown(path)}: {err.strerror}") from err


def _special(mode: int) -> str | None:
    for test, what in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return None


def _input(raw: str, role: str, want: str) -> Path:
    path = _check_name(raw, role)
    st = _stat(path, role)
    if st is None:
        raise UsageError(f"{role} {shown(path)}: no such file or folder")
    special = _special(st.st_mode)
    if special:
        raise UsageError(f"{role} {shown(path)} is {special}, not a regular file: give a file "
                         "saved on disk (reading it could block or never end)")
    is_dir = stat.S_ISDIR(st.st_mode)
    if want == "file" and is_dir:
        raise UsageError(f"{role} {shown(path)} is a folder; give a file")
    if want == "dir" and not is_dir:
        raise UsageError(f"{role} {shown(path)} is a file; give a folder")
    if not os.access(path, os.R_OK | (os.X_OK if is_dir else 0)):
        raise UsageError(f"{role} {shown(path)}: permission denied (cannot read it)")
    return path


def input_file(raw: str, role: str = "input") -> Path:
    """An existing regular file that can be read."""
    return _input(raw, role, "file")


def input_dir(raw: str, role: str = "input folder") -> Path:
    """An existing folder that can be read."""
    return _input(raw, role, "dir")


def input_path(raw: str, role: str = "input") -> Path:
    """An existing regular file or folder that can be read."""
    return _input(raw, role, "any")


def _writable_parent(path: Path, role: str) -> None:
    """The nearest existing ancestor of ``path`` is a folder this process can write into."""
    parent = path.parent
    while True:
        st = _stat(parent, role)
        if st is not None:
            break
        if parent == parent.parent:
            return
        parent = parent.parent
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{role} {shown(path)}: {shown(parent)} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{role} {shown(path)}: cannot write into {shown(parent)} "
                         "(permission denied)")


def _output(raw: str, role: str) -> tuple[Path, os.stat_result | None]:
    """``raw`` checked as a name to write to, and what is there now: None when nothing is (its
    folder is then checked to be writable or creatable)."""
    path = _check_name(raw, role)
    st = _stat(path, role)
    if st is None:
        _writable_parent(path, role)
    return path, st


def output_dir(raw: str, role: str = "output folder") -> Path:
    """A folder to write into: an existing writable folder, or one that can be created."""
    path, st = _output(raw, role)
    if st is None:
        return path
    if not stat.S_ISDIR(st.st_mode):
        what = _special(st.st_mode) or "a file"
        raise UsageError(f"{role} {shown(path)} is {what}, not a folder; give a folder (it is "
                         "created when missing)")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"{role} {shown(path)}: cannot write into it (permission denied)")
    return path


def output_file(raw: str, role: str = "output file") -> Path:
    """A file to write: missing (its folder writable or creatable) or a writable regular file."""
    path, st = _output(raw, role)
    if st is None:
        return path
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{role} {shown(path)} is a folder; give a file name")
    special = _special(st.st_mode)
    if special:
        raise UsageError(f"{role} {shown(path)} is {special}; give a regular file name")
    if not os.access(path, os.W_OK):
        raise UsageError(f"{role} {shown(path)}: cannot overwrite it (permission denied)")
    return path


# Folders this process created up front, shallowest first: a command that then fails removes
# the ones still empty (remove_empty_created), so a refused run leaves no empty folders behind.
_CREATED: list[Path] = []


def _create(folder: Path, path: Path, role: str, what: str) -> None:
    missing = [p for p in (folder, *folder.parents) if not p.exists()]  # deepest first
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"{role} {shown(path)}: cannot create {what} {shown(folder)} "
                         f"({err.strerror}); give a path in a folder you can write") from err
    _CREATED.extend(reversed(missing))


def created_mark() -> int:
    """How many folders this process has created so far (for :func:`remove_empty_created`)."""
    return len(_CREATED)


def remove_empty_created(since: int = 0) -> list[Path]:
    """Remove the folders :func:`created_output_dir` / :func:`created_output_file` made in this
    process after :func:`created_mark` gave ``since`` that are still empty (deepest first), e.g.
    after the command failed; a folder with anything in it is kept. Returns the folders removed."""
    removed = []
    while len(_CREATED) > since:
        folder = _CREATED.pop()
        if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
            folder.rmdir()
            removed.append(folder)
    return removed


def created_output_file(raw: str, role: str = "output file") -> Path:
    """:func:`output_file` for a command that creates the file's missing folders: they are
    created now, so a folder that cannot be made (``/proc/x/t.csv``) is refused before the work."""
    path = output_file(raw, role)
    _create(path.parent, path, role, "its folder")
    return path


def created_output_dir(raw: str, role: str = "output folder") -> Path:
    """:func:`output_dir` for a command that will write into it: the folder and its missing
    parents are created now (like ``mkdir -p``), so one that cannot be made
    (``/sys/kernel/new/runs``) is refused, naming the argument, before any work starts."""
    path = output_dir(raw, role)
    _create(path, path, role, "the folder")
    return path


def figure_formats() -> dict[str, str]:
    """Extension -> description of every format matplotlib's canvas can save (imports
    ``matplotlib.backend_bases`` on the first call only, never at ``--help`` time)."""
    from matplotlib.backend_bases import FigureCanvasBase

    return dict(FigureCanvasBase.get_supported_filetypes())


def figure_file(raw: str, role: str = "figure file") -> Path:
    """A figure to save: :func:`output_file` in an existing folder (figures are saved where
    given; no folder is created), whose extension, if any, is one matplotlib can write (.png,
    .svg, .pdf...)."""
    path = output_file(raw, role)
    formats = figure_formats()
    suffix = path.suffix[1:].lower()
    if suffix and suffix not in formats:  # no extension: matplotlib writes savefig.format
        raise UsageError(f"{role} {shown(path)}: .{suffix} is not a figure format matplotlib "
                         f"can write; use one of {', '.join('.' + f for f in sorted(formats))}")
    if not path.parent.is_dir():
        raise UsageError(f"{role} {shown(path)}: the folder {shown(path.parent)} does not exist; "
                         "create it first or give a path in an existing folder")
    return path
