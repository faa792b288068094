"""Run directories: one record for every kind of run, written so nothing half-done looks done.

Every run — a build, a profile run, a trtexec profile run, an engine + companion .so pair, a
report — is a folder ``<runs>/<name>/`` with one ``manifest.json``:

    schema        "trtsafe-lab/run/1" (:data:`RUN_SCHEMA`)
    kind          one of :data:`KINDS`: build, profile, trtexec-profile, pair, report
    name          the run's folder name
    created_utc   when the manifest was written
    files         every file of the run: path (relative), size_bytes, sha256, inside_run=true;
                  and files it wrote outside its folder: path (absolute), inside_run=false, kind,
                  size_bytes and sha256 when the file was there
    ...           fields of the kind (a profile run's executor, timing, gpu; a pair's
                  trt_version; a report's notebook and inputs)

Staging is the same for every kind: a run is written into ``<runs>/.<name>.partial/`` and
renamed to ``<runs>/<name>/`` only after its manifest is written. A cancelled, timed-out,
crashed or disk-full run stays under the ``.partial`` name with what it wrote and an
``INCOMPLETE.json`` saying why. :func:`load_run` reads any kind (dispatching on ``kind``) and
:func:`trtsafe_lab.runs_table.list_runs` lists every kind. Reading needs neither TensorRT nor a GPU.

Files by kind (besides the manifest):

    build            command.json (argv, tool, TensorRT version, rule warnings), environment.json,
                     build.log (full log), result.json (exit_code, status, duration_s, ...),
                     failures.csv (the log's failure table), artifacts/ (relative outputs)
    profile          run.timing.json (trtexec --exportTimes schema), run.graph.json, kernels.json
    trtexec-profile  run.timing.json, run.profile.json, run.graph.json, trtexec.log
    pair             the engine, its companion .so and the pair manifest (<engine>.pair.json)
    report           report.html

Manifests written before this schema (build runs without ``schema``, profile runs with
``trtsafe-lab/profile-run/1``) are read too; :func:`upgrade_manifest` rewrites one.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from trtsafe_lab.files import write_json_atomic

if TYPE_CHECKING:
    import pandas as pd

RUN_SCHEMA = "trtsafe-lab/run/1"
KINDS = ("build", "profile", "trtexec-profile", "pair", "report")
# Schemas of manifests written before RUN_SCHEMA (read, and rewritten by upgrade_manifest).
LEGACY_PROFILE_SCHEMA = "trtsafe-lab/profile-run/1"
# Manifest keys every kind has; a kind's own fields may not use them.
COMMON_KEYS = ("schema", "kind", "name", "created_utc", "files")
PARTIAL_SUFFIX = ".partial"
LOG_NAME = "build.log"
FAILURES_NAME = "failures.csv"
MANIFEST_NAME = "manifest.json"
INCOMPLETE_NAME = "INCOMPLETE.json"


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def log_failure_table(log_path: Path) -> pd.DataFrame:
    """The layer-level failure table of the log file at ``log_path`` (columns:
    ``trtsafe_lab.logs.columns.FAILURE_COLUMNS``), read by the logs package's streaming scan:
    the same rows as ``analyze_log(log_path).failures`` without its views."""
    from trtsafe_lab.logs.scan import scan_failures
    from trtsafe_lab.logs.tables import failures_frame

    return failures_frame(scan_failures(log_path))


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class RunDirError(RuntimeError):
    """A run directory could not be written or read; the message says where and what to do."""


def partial_path(parent: Path, name: str) -> Path:
    """Where run ``name`` is written until it is complete: ``<parent>/.<name>.partial``."""
    return Path(parent) / f".{name}{PARTIAL_SUFFIX}"


def mark_incomplete(path: Path, status: str, detail: str, started_utc: str = "",
                    kind: str | None = None) -> str | None:
    """Write ``INCOMPLETE.json`` (status, detail, kind of run, started and abandoned times)
    into a partial run; return a problem writing it, or None."""
    try:
        write_json_atomic(path / INCOMPLETE_NAME, {"status": status, "detail": detail,
                                                 "kind": kind, "started_utc": started_utc,
                                                 "abandoned_utc": utc_now()})
    except OSError as err:
        return f"could not write {INCOMPLETE_NAME} ({err})"
    return None


@contextmanager
def staged_run_dir(parent: Path, name: str, kind: str | None = None) -> Iterator[Path]:
    """Yield ``<parent>/.<name>.partial`` to write a run (of ``kind``) into; rename it to
    ``<parent>/<name>`` when the block completes.

    If the block raises (or is interrupted), the folder keeps its ``.partial`` name, gets an
    ``INCOMPLETE.json`` naming the error (and the kind), and nothing written so far is deleted.
    An existing finished run of that name is never overwritten.
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
        mark_incomplete(staging, type(err).__name__, str(err), started, kind)
        raise
    os.rename(staging, final)


def file_entries(run_path: Path, external: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """The ``files`` list of a manifest: every file under ``run_path`` but the manifest (path
    relative, size_bytes, sha256, inside_run) in path order, then ``external`` files (``path``
    absolute, ``kind``), hashed when they exist."""
    files = []
    for path in sorted(p for p in run_path.rglob("*") if p.is_file()):
        rel = path.relative_to(run_path).as_posix()
        if rel in (MANIFEST_NAME, INCOMPLETE_NAME):
            continue
        files.append({"path": rel, "inside_run": True, "size_bytes": path.stat().st_size,
                      "sha256": sha256_file(path)})
    for item in external:
        path = Path(item["path"])
        entry = {"inside_run": False, **item}
        if path.is_file():
            entry.update(size_bytes=path.stat().st_size, sha256=sha256_file(path))
        files.append(entry)
    return files


def write_run_manifest(run_path: Path, kind: str, name: str, info: dict[str, Any] | None = None,
                   external: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Write the run's ``manifest.json`` (the last file of a run; see the module docstring):
    the common keys, the files now under ``run_path`` with sizes and SHA-256, and ``info`` (the
    kind's own fields). Returns the manifest."""
    if kind not in KINDS:
        raise ValueError(f"unknown run kind {kind!r}; one of {', '.join(KINDS)}")
    clash = sorted(set(info or {}) & set(COMMON_KEYS))
    if clash:
        raise ValueError(f"run info may not set the manifest's own keys {clash}")
    manifest = {"schema": RUN_SCHEMA, "kind": kind, "name": name, "created_utc": utc_now(),
                **(info or {}), "files": file_entries(Path(run_path), external)}
    write_json_atomic(Path(run_path) / MANIFEST_NAME, manifest)
    return manifest


def annotate_run(run_path: Path, info: dict[str, Any]) -> dict[str, Any]:
    """Add ``info`` (fields of the kind) to a finished run's manifest and list its files again
    (files added to the run since, with sizes and SHA-256; files outside it kept), so the
    manifest still matches the folder; an atomic rewrite. Returns the manifest."""
    clash = sorted(set(info) & set(COMMON_KEYS))
    if clash:
        raise ValueError(f"run info may not set the manifest's own keys {clash}")
    run_path = Path(run_path)
    manifest = read_run_manifest(run_path)
    external = [e for e in manifest["files"] if not e.get("inside_run")]
    manifest.update(info)
    manifest["files"] = file_entries(run_path, external)
    write_json_atomic(run_path / MANIFEST_NAME, manifest)
    return manifest


class RunWriter:
    """Writes one run under a temporary name; :meth:`finish` makes it final, :meth:`abandon`
    leaves it visibly incomplete. Every write goes through :meth:`_open_log` or
    :func:`~trtsafe_lab.files.write_json_atomic`, so failures (e.g. ENOSPC) surface as
    ``OSError`` to the caller."""

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
        write_json_atomic(self.path / name, data)

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
        write_run_manifest(self.path, "build", self.name, external=external)
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
        return mark_incomplete(self.path, status, detail, self.started_utc, "build")


@dataclass(frozen=True)
class RunRecord:
    """A finished run directory of any kind, loaded by :func:`load_run` (no TensorRT needed).

    ``manifest`` is the run's manifest (legacy ones normalised to :data:`RUN_SCHEMA`).
    """

    path: Path
    manifest: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.manifest["kind"])

    @property
    def name(self) -> str:
        return self.path.name

    def artifact_path(self, entry: dict[str, Any]) -> Path:
        """Where a ``files`` entry of the manifest is on disk."""
        path = Path(entry["path"])
        return self.path / path if entry.get("inside_run") else path

    def file(self, name: str) -> Path:
        """The run's file ``name`` (relative to the run); FileNotFoundError naming the run when
        the manifest does not list it."""
        for entry in self.manifest["files"]:
            if entry.get("inside_run") and entry["path"] == name:
                return self.path / name
        raise FileNotFoundError(f"{self.kind} run {self.path} has no file {name!r} in its manifest")

    def verify(self) -> list[str]:
        """Files whose size or SHA-256 no longer match the manifest (empty list: all match)."""
        problems = []
        for entry in self.manifest["files"]:
            path = self.artifact_path(entry)
            if "sha256" not in entry:
                continue
            if not path.is_file():
                problems.append(f"{path}: listed in the manifest but missing")
            elif path.stat().st_size != entry.get("size_bytes", path.stat().st_size) or \
                    sha256_file(path) != entry["sha256"]:
                problems.append(f"{path}: changed since the run (SHA-256 differs from manifest)")
        return problems


@dataclass(frozen=True)
class BuildRun(RunRecord):
    """A build run: ``command``, ``environment`` and ``result`` are its JSON files."""

    command: dict[str, Any]
    environment: dict[str, Any]
    result: dict[str, Any]

    @property
    def log_path(self) -> Path:
        return self.path / LOG_NAME

    def failures(self) -> pd.DataFrame:
        """The log's layer-level failure table (columns as :mod:`trtsafe_lab.logs` defines)."""
        return log_failure_table(self.log_path)


@dataclass(frozen=True)
class PairRun(RunRecord):
    """A packaged engine + companion .so pair: ``engine``, ``companion_so`` and
    ``pair_manifest`` (the ``trtsafe-lab-pair/1`` file ``verify-pair --manifest`` reads)."""

    @property
    def engine(self) -> Path:
        return self.file(str(self.manifest["engine"]))

    @property
    def companion_so(self) -> Path:
        return self.file(str(self.manifest["companion_so"]))

    @property
    def pair_manifest(self) -> Path:
        return self.file(str(self.manifest["pair_manifest"]))


def read_json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RunDirError(f"cannot read {path}: {err}") from err
    if not isinstance(data, dict):
        raise RunDirError(f"{path} does not hold a JSON object")
    return data


def _legacy_manifest(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """A manifest written before :data:`RUN_SCHEMA`, in the current shape; None if not one."""
    if data.get("schema") == LEGACY_PROFILE_SCHEMA:
        listing = data.get("files", {})
        if not isinstance(listing, dict):
            return None
        files = [{"path": name, "inside_run": True, "size_bytes": entry.get("bytes"),
                  "sha256": entry.get("sha256")} for name, entry in listing.items()
                 if isinstance(entry, dict)]
        kind = "trtexec-profile" if (path / "trtexec.log").is_file() else "profile"
        rest = {k: v for k, v in data.items() if k not in COMMON_KEYS}
        return {"schema": RUN_SCHEMA, "kind": kind, "name": str(data.get("name", path.name)),
                "created_utc": data.get("created_utc", ""), **rest, "files": files}
    if "schema" not in data and "run_name" in data and (path / "command.json").is_file():
        rest = {k: v for k, v in data.items()
                if k not in (*COMMON_KEYS, "run_name", "complete", "written_utc")}
        return {"schema": RUN_SCHEMA, "kind": "build", "name": str(data["run_name"]),
                "created_utc": data.get("written_utc", ""), **rest,
                "files": data.get("files", [])}
    return None


def _check_manifest(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    where = path / MANIFEST_NAME
    if data.get("schema") != RUN_SCHEMA:
        upgraded = _legacy_manifest(path, data)
        if upgraded is None:
            raise RunDirError(
                f"{where} is not a trtsafe-lab run manifest (schema {data.get('schema')!r}, "
                f"expected {RUN_SCHEMA!r})")
        data = upgraded
    if data.get("kind") not in KINDS:
        raise RunDirError(f"{where}: kind {data.get('kind')!r} is not one of {', '.join(KINDS)}")
    files = data.get("files")
    if not isinstance(files, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) for e in files):
        raise RunDirError(f"{where}: 'files' must be a list of objects with a 'path' string")
    if not isinstance(data.get("name"), str):
        raise RunDirError(f"{where}: 'name' must be a string")
    return data


def read_run_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of the run directory ``path``, checked and in the current schema (legacy
    manifests are converted in memory). RunDirError says what is wrong and where."""
    path = Path(path)
    return _check_manifest(path, read_json_object(path / MANIFEST_NAME))


def upgrade_manifest(path: str | Path) -> bool:
    """Rewrite a legacy manifest of run ``path`` in the current schema; False if it already was.
    The files are not touched (their recorded sizes and hashes are kept)."""
    path = Path(path)
    data = read_json_object(path / MANIFEST_NAME)
    if data.get("schema") == RUN_SCHEMA:
        return False
    write_json_atomic(path / MANIFEST_NAME, _check_manifest(path, data))
    return True


def load_run(path: str | Path) -> RunRecord:
    """Load a finished run of any kind: a :class:`BuildRun` for builds, a :class:`PairRun` for
    pairs, a :class:`RunRecord` for the others. A ``.partial`` (incomplete) run is refused with
    the reason; so is a folder that is not a run, naming what is missing."""
    path = Path(path)
    if not path.is_dir():
        raise RunDirError(f"{path} is not a run directory"
                          + (" (it is a file)" if path.exists() else " (it does not exist)"))
    if path.name.endswith(PARTIAL_SUFFIX):
        note = path / INCOMPLETE_NAME
        why = (read_json_object(note).get("detail", "") if note.is_file()
               else "no manifest was written")
        log = path / LOG_NAME
        raise RunDirError(f"{path} is an incomplete run ({why})"
                          + (f"; its partial log is {log}" if log.is_file() else ""))
    if not (path / MANIFEST_NAME).is_file():
        raise RunDirError(f"{path} is not a run directory: it has no {MANIFEST_NAME}")
    manifest = read_run_manifest(path)
    if manifest["kind"] == "build":
        command, environment, result = (read_json_object(path / f"{n}.json")
                                        for n in ("command", "environment", "result"))
        return BuildRun(path, manifest, command, environment, result)
    if manifest["kind"] == "pair":
        return PairRun(path, manifest)
    return RunRecord(path, manifest)
