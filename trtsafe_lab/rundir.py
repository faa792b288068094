"""Run directories: the unit of record for every build, written so nothing half-done looks done.

A run is written into ``<runs>/.<name>.partial/`` and renamed to ``<runs>/<name>/`` only after
its manifest is written. A cancelled, timed-out, crashed or disk-full run stays under the
``.partial`` name with its partial log and an ``INCOMPLETE.json`` saying why. Loading run
directories needs neither TensorRT nor a GPU.

Layout of a finished run::

    command.json      argv as run, tool, TensorRT version, rule warnings
    environment.json  tool path and version, GPU, host, Python, selected environment variables
    build.log         the full log (stdout and stderr lines, in arrival order)
    result.json       exit_code, status, duration_s, started_utc, finished_utc, missing artifacts
    failures.csv      the log's layer-level failure table (trtsafe_lab.logs), when available
    artifacts/        files the tool wrote when their paths were relative
    manifest.json     every file of the run (and outside artifacts): size_bytes, sha256, kind
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

import pandas as pd

from trtsafe_lab.files import write_json_atomic

PARTIAL_SUFFIX = ".partial"
LOG_NAME = "build.log"
FAILURES_NAME = "failures.csv"
MANIFEST_NAME = "manifest.json"
INCOMPLETE_NAME = "INCOMPLETE.json"

# Columns of list_runs(); durations in seconds.
RUN_COLUMNS = (
    "run_name", "status", "exit_code", "duration_s", "started_utc", "tool", "trt_version",
    "n_artifacts", "missing_artifacts", "path",
)


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def write_json_file(path: Path, data: Any) -> None:
    """Write JSON atomically (:func:`trtsafe_lab.files.write_json_atomic`: unique temporary,
    rename), so a reader never sees half a file and concurrent writers never collide."""
    write_json_atomic(path, data)


class RunDirError(RuntimeError):
    """A run directory could not be written or read; the message says where and what to do."""


def partial_path(parent: Path, name: str) -> Path:
    """Where run ``name`` is written until it is complete: ``<parent>/.<name>.partial``."""
    return Path(parent) / f".{name}{PARTIAL_SUFFIX}"


def mark_incomplete(path: Path, status: str, detail: str, started_utc: str = "") -> str | None:
    """Write ``INCOMPLETE.json`` into a partial run; return a problem writing it, or None."""
    try:
        write_json_file(path / INCOMPLETE_NAME, {"status": status, "detail": detail,
                                                 "started_utc": started_utc,
                                                 "abandoned_utc": utc_now()})
    except OSError as err:
        return f"could not write {INCOMPLETE_NAME} ({err})"
    return None


@contextmanager
def staged_run_dir(parent: Path, name: str) -> Iterator[Path]:
    """Yield ``<parent>/.<name>.partial`` to write a run into; rename it to ``<parent>/<name>``
    when the block completes.

    If the block raises (or is interrupted), the folder keeps its ``.partial`` name, gets an
    ``INCOMPLETE.json`` naming the error, and nothing written so far is deleted. An existing
    finished run of that name is never overwritten.
    """
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"run name {name!r} must be a plain folder name")
    final = Path(parent) / name
    if final.exists():
        raise FileExistsError(f"run directory {final} already exists; choose another name or "
                              "remove it")
    staging = partial_path(parent, name)
    if staging.exists():
        raise FileExistsError(f"{staging} holds an earlier incomplete run of that name; "
                              "inspect or remove it first")
    staging.mkdir(parents=True)
    started = utc_now()
    try:
        yield staging
    except BaseException as err:
        mark_incomplete(staging, type(err).__name__, str(err), started)
        raise
    os.rename(staging, final)


class RunWriter:
    """Writes one run under a temporary name; :meth:`finish` makes it final, :meth:`abandon`
    leaves it visibly incomplete. Every write goes through :meth:`_open_log`/:func:`write_json_file`
    so failures (e.g. ENOSPC) surface as ``OSError`` to the caller."""

    def __init__(self, runs_dir: Path, label: str = "build") -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        safe_label = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:40]
        self.name = f"{stamp}-{safe_label}-{secrets.token_hex(3)}"
        self.runs_dir = Path(runs_dir)
        self.final_path = self.runs_dir / self.name
        self.path = partial_path(self.runs_dir, self.name)
        self.path.mkdir(parents=True)
        (self.path / "artifacts").mkdir()
        self.started_utc = utc_now()
        self._log: IO[str] | None = self._open_log()

    def _open_log(self) -> IO[str]:
        return (self.path / LOG_NAME).open("a", encoding="utf-8", buffering=1)

    @property
    def log_path(self) -> Path:
        return self.path / LOG_NAME

    def write_line(self, line: str) -> None:
        """Append one log line (line-buffered, so a crash keeps everything before it)."""
        if self._log is None:
            raise RunDirError(f"log of {self.path} is already closed")
        self._log.write(line + "\n")

    def write_json(self, name: str, data: Any) -> None:
        write_json_file(self.path / name, data)

    def close_log(self) -> None:
        if self._log is not None:
            log, self._log = self._log, None
            log.close()

    def finish(self, result: dict[str, Any], external: list[dict[str, Any]]) -> Path:
        """Write result and manifest, then rename to the final name; return the final path.

        ``external`` lists artifacts outside the run directory (``path`` absolute, ``kind``).
        """
        self.close_log()
        self.write_json("result.json", result)
        files = []
        for path in sorted(p for p in self.path.rglob("*") if p.is_file()):
            rel = path.relative_to(self.path).as_posix()
            files.append({"path": rel, "inside_run": True, "size_bytes": path.stat().st_size,
                          "sha256": sha256_file(path)})
        for item in external:
            path = Path(item["path"])
            entry = {"inside_run": False, **item}
            if path.is_file():
                entry.update(size_bytes=path.stat().st_size, sha256=sha256_file(path))
            files.append(entry)
        self.write_json(MANIFEST_NAME, {"run_name": self.name, "complete": True,
                                        "written_utc": utc_now(), "files": files})
        if self.final_path.exists():
            raise RunDirError(f"{self.final_path} already exists; {self.path} was kept as is")
        os.rename(self.path, self.final_path)
        self.path = self.final_path
        return self.final_path

    def abandon(self, status: str, detail: str) -> str | None:
        """Leave the run under its ``.partial`` name with a note; return a problem writing the
        note (e.g. the disk is still full) or None. The partial log is never deleted."""
        try:
            self.close_log()
        except OSError as err:
            return f"closing the log failed too ({err})"
        return mark_incomplete(self.path, status, detail, self.started_utc)


@dataclass(frozen=True)
class RunRecord:
    """A finished run directory, loaded (no TensorRT needed)."""

    path: Path
    command: dict[str, Any]
    environment: dict[str, Any]
    result: dict[str, Any]
    manifest: dict[str, Any]

    @property
    def log_path(self) -> Path:
        return self.path / LOG_NAME

    @property
    def name(self) -> str:
        return self.path.name

    def artifact_path(self, entry: dict[str, Any]) -> Path:
        path = Path(entry["path"])
        return self.path / path if entry.get("inside_run") else path

    def failures(self) -> pd.DataFrame:
        """The log's layer-level failure table (columns as :mod:`trtsafe_lab.logs` defines)."""
        from trtsafe_lab.logs import analyze_log

        return analyze_log(self.log_path).failures

    def verify(self) -> list[str]:
        """Files whose size or SHA-256 no longer match the manifest (empty list: all match)."""
        problems = []
        for entry in self.manifest["files"]:
            path = self.artifact_path(entry)
            if "sha256" not in entry:
                continue
            if not path.is_file():
                problems.append(f"{path}: listed in the manifest but missing")
            elif sha256_file(path) != entry["sha256"]:
                problems.append(f"{path}: changed since the run (SHA-256 differs from manifest)")
        return problems


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise RunDirError(f"cannot read {path}: {err}") from err
    if not isinstance(data, dict):
        raise RunDirError(f"{path} does not hold a JSON object")
    return data


def is_partial(path: Path) -> bool:
    return path.name.endswith(PARTIAL_SUFFIX) or not (path / MANIFEST_NAME).is_file()


def load_run(path: str | Path) -> RunRecord:
    """Load a finished run; a ``.partial`` (incomplete) one is refused with the reason."""
    path = Path(path)
    if not path.is_dir():
        raise RunDirError(f"{path} is not a run directory")
    if is_partial(path):
        note = path / INCOMPLETE_NAME
        why = _read_json(note).get("detail", "") if note.is_file() else "no manifest was written"
        raise RunDirError(
            f"{path} is an incomplete run ({why}); its partial log is {path / LOG_NAME}"
        )
    return RunRecord(
        path,
        _read_json(path / "command.json"),
        _read_json(path / "environment.json"),
        _read_json(path / "result.json"),
        _read_json(path / MANIFEST_NAME),
    )


def list_runs(runs_dir: str | Path, include_partial: bool = False) -> pd.DataFrame:
    """One row per run under ``runs_dir`` (columns :data:`RUN_COLUMNS`), oldest first.

    ``status`` is the run's result status, or the INCOMPLETE note's status for partial runs
    (listed only with ``include_partial``). ``missing_artifacts`` counts expected files the
    tool did not write.
    """
    rows = []
    for path in sorted(Path(runs_dir).iterdir()) if Path(runs_dir).is_dir() else []:
        if not path.is_dir():
            continue
        if is_partial(path):
            if include_partial:
                note = path / INCOMPLETE_NAME
                status = _read_json(note).get("status") if note.is_file() else "incomplete"
                rows.append({"run_name": path.name, "status": status, "path": str(path)})
            continue
        run = load_run(path)
        rows.append({
            "run_name": run.name,
            "status": run.result.get("status"),
            "exit_code": run.result.get("exit_code"),
            "duration_s": run.result.get("duration_s"),
            "started_utc": run.result.get("started_utc"),
            "tool": run.command.get("tool_kind"),
            "trt_version": run.command.get("trt_version"),
            "n_artifacts": len(run.result.get("artifacts", [])),
            "missing_artifacts": len(run.result.get("missing_artifacts", [])),
            "path": str(path),
        })
    return pd.DataFrame(rows, columns=list(RUN_COLUMNS))
