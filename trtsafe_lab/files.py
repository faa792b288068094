"""Files the package writes: atomic replacement, and claims on outputs that runs share.

``write_bytes_atomic`` / ``write_text_atomic`` / ``write_json_atomic`` write into a temporary file
with a *unique* name in the target's folder (``tempfile.mkstemp``), flush it to disk and rename it
over the target, so a reader sees the old file or the new one, never half of one, and two writers
of the same file never share a temporary (a fixed ``.name.tmp`` made two writers delete or tear
each other's file).

``OutputClaim`` is held by a run for the outputs it writes outside its own run directory (an
absolute ``--saveEngine``): a second run naming the same file while the first holds it is refused
with a message naming the holder, instead of both "passing" with manifests that no longer match
the file on disk. Claims are advisory ``flock`` locks on a hidden ``.<name>.claim`` file beside
the output, removed on release; they work between processes of one machine.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from trtsafe_lab.errors import UsageError


def write_bytes_atomic(path: Path, data: bytes | memoryview) -> None:
    """Replace ``path`` with ``data`` atomically (unique temporary in the same folder)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # already renamed: nothing to clean
            os.unlink(tmp)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as indented, key-sorted JSON atomically."""
    text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    write_text_atomic(path, text)


class OutputInUseError(UsageError):
    """Another run holds a claim on an output this run would write."""


class OutputClaim:
    """Exclusive claims on ``paths`` for ``owner`` (e.g. a run directory), between processes.

    ``acquire()`` takes every claim or none (raising :class:`OutputInUseError` naming the file and
    its holder); ``release()`` drops them. Also a context manager.
    """

    def __init__(self, paths: list[Path], owner: str) -> None:
        self.paths = sorted({Path(p).resolve() for p in paths})
        self.owner = owner
        self._held: list[tuple[Path, int]] = []

    @staticmethod
    def claim_file(path: Path) -> Path:
        return path.with_name(f".{path.name}.claim")

    def acquire(self) -> OutputClaim:
        try:
            for path in self.paths:
                self._held.append((path, self._take(path)))
        except BaseException:
            self.release()
            raise
        return self

    def _take(self, path: Path) -> int:
        claim = self.claim_file(path)
        while True:
            fd = os.open(claim, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 4096).decode("utf-8", "replace").strip() or "another run"
                os.close(fd)
                raise OutputInUseError(
                    f"{path} is being written by {holder}; two runs must not name the same "
                    "output file (give each its own --saveEngine path or wait for the other run)"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(claim).st_ino
            except FileNotFoundError:
                same = False  # the previous holder removed it between our open and lock
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{self.owner} (pid {os.getpid()})".encode())
                return fd
            os.close(fd)

    def release(self) -> None:
        while self._held:
            path, fd = self._held.pop()
            try:
                os.unlink(self.claim_file(path))
            except FileNotFoundError:
                pass  # removed by hand: the lock still ends with the descriptor
            finally:
                os.close(fd)

    def __enter__(self) -> OutputClaim:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
