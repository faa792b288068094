"""Run a trtexec / trtexec_safe command into a run directory, watched live.

:class:`TrtexecBuild` checks the 11.x rules, places relative output paths inside the run
directory (``<run>/artifacts/``), resolves relative input paths against the caller's working
directory, runs the tool through :class:`~trtsafe_lab.trtexec.runner.ProcessRunner` (every
line goes to the log file, the progress tracker and an optional callback) and finishes the run
directory. ``cancel()`` may be called from another thread; Ctrl-C / a notebook interrupt
cancels too (and SIGTERM/SIGHUP, where the caller uses
:func:`~trtsafe_lab.trtexec.runner.signals_as_interrupt`, as ``trtsafe-lab build`` does).
A cancel, timeout, crash (killed by a signal) or write error leaves the run under its
``.partial`` name; a tool that exits by itself, even with an error, gives a finished run.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trtsafe_lab import __version__
from trtsafe_lab.artifacts import SafeEnginePair
from trtsafe_lab.files import OutputClaim, OutputInUseError
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.rundir import FAILURES_NAME, LOG_NAME, RunWriter, log_failure_table, utc_now
from trtsafe_lab.trtexec.options import INPUT_PATH_FLAGS, OUTPUT_PATH_FLAGS, TrtexecCommand
from trtsafe_lab.trtexec.progress import ProgressTracker
from trtsafe_lab.trtexec.rules import (
    BuildRuleFinding,
    ExpectedArtifact,
    enforce,
    expected_artifacts,
)
from trtsafe_lab.trtexec.runner import (
    STATUS_EXITED,
    ProcessResult,
    ProcessRunner,
    SignalInterrupt,
)

ENV_VARS_RECORDED = ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "PATH", "TRT_LIB_DIR")


class ToolNotFoundError(FileNotFoundError):
    """trtexec / trtexec_safe is not on this machine."""


class BuildAbortedError(RuntimeError):
    """The run could not be completed (write error); ``run_dir`` holds the partial log."""

    def __init__(self, message: str, run_dir: Path) -> None:
        super().__init__(message)
        self.run_dir = run_dir


class _WriteFailed(Exception):
    """Writing the run record failed (wraps the OSError so it is not taken for a start error)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def resolve_tool(tool: str) -> Path:
    """The tool's absolute path (a path, or a name looked up on PATH), or a clear error."""
    found = shutil.which(tool)
    if found is None:
        raise ToolNotFoundError(
            f"'{tool}' was not found (not an executable path, not on PATH). Builds need "
            "TensorRT's trtexec (trtexec_safe and --safe builds: from the DriveOS SDK); put it "
            "on PATH or pass its path with --tool. Analysing existing run directories and logs "
            "works without it."
        )
    return Path(found).resolve()


def gpu_summary() -> str:
    """``nvidia-smi -L`` output, or a sentence saying why there is none."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "unknown: nvidia-smi not found"
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown: nvidia-smi failed ({err})"
    return out.stdout.strip() or f"unknown: nvidia-smi said {out.stderr.strip()!r}"


def host_summary() -> dict[str, Any]:
    """GPU, host, platform, Python, trtsafe-lab version and selected environment variables."""
    return {
        "gpu": gpu_summary(),
        "host": platform.node(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "trtsafe_lab": __version__,
        "env": {name: os.environ[name] for name in ENV_VARS_RECORDED if name in os.environ},
    }


def environment_summary(tool_path: Path, cmd: TrtexecCommand) -> dict[str, Any]:
    return {"tool_path": str(tool_path), "trt_version": str(cmd.version), **host_summary()}


def record_failure_table(run_path: Path) -> dict[str, Any]:
    """Write the log's failure table to ``failures.csv``; return the result.json fields for it.

    The table comes from :func:`trtsafe_lab.rundir.log_failure_table` (the logs job's scan;
    columns as it documents). If parsing raises, the reason is recorded in the result
    (``failure_table_note``) instead of a table; the run record itself stays complete.
    """
    try:
        table = log_failure_table(run_path / LOG_NAME)
        table.to_csv(run_path / FAILURES_NAME, index=False)
    except Exception as err:  # recorded in result.json, not swallowed: the log is still there
        return {"failure_table": None,
                "failure_table_note": f"parsing {LOG_NAME} failed: {type(err).__name__}: {err}"}
    return {"failure_table": FAILURES_NAME, "n_failures": len(table)}


def place_paths(cmd: TrtexecCommand, artifacts_dir: Path, cwd: Path) -> TrtexecCommand:
    """Relative outputs -> ``artifacts_dir``; relative inputs and the timing cache -> ``cwd``."""
    new: dict[str, str] = {}
    for flag in cmd.flags:
        if flag.value is None or Path(flag.value).is_absolute():
            continue
        if flag.name in OUTPUT_PATH_FLAGS:
            new[flag.name] = str(artifacts_dir / flag.value)
        elif flag.name in INPUT_PATH_FLAGS:
            new[flag.name] = str(cwd / flag.value)
    return cmd.replace_values(new)


@dataclass
class BuildResult:
    """A build's outcome. ``run_dir`` is final when ``complete``, else the ``.partial`` one.

    ``artifacts`` are the expected files with ``present`` and the path the tool used;
    ``missing`` names expected outputs the tool did not write.
    """

    run_dir: Path
    process: ProcessResult
    complete: bool
    warnings: list[BuildRuleFinding]
    artifacts: list[dict[str, Any]]
    missing: list[str]

    @property
    def ok(self) -> bool:
        """Exit code 0 and every expected output written."""
        return self.complete and self.process.returncode == 0 and not self.missing

    def failures(self) -> Any:
        """The log's failure table (:func:`trtsafe_lab.rundir.log_failure_table`)."""
        return log_failure_table(self.run_dir / LOG_NAME)


@dataclass
class TrtexecBuild:
    """One trtexec run into ``runs_dir``; call :meth:`run` once, :meth:`cancel` from anywhere."""

    command: TrtexecCommand
    runs_dir: Path
    label: str = "build"
    timeout_s: float | None = None
    grace_s: float = 3.0  # SIGTERM -> SIGKILL delay when stopping the process group
    on_line: Callable[[str, str], None] | None = None
    progress: ProgressTracker = field(default_factory=ProgressTracker)
    # Live failure rows (logs job's incremental parser); on_failure gets each row as it completes.
    live_parser: LogParser = field(default_factory=lambda: LogParser(keep_events=False))
    on_failure: Callable[[dict[str, Any]], None] | None = None
    cwd: Path = field(default_factory=Path.cwd)
    _runner: ProcessRunner | None = None
    _cancelled: bool = False

    def cancel(self) -> None:
        self._cancelled = True
        if self._runner is not None:
            self._runner.cancel()

    def _line(self, writer: RunWriter, stream: str, line: str) -> None:
        try:
            writer.write_line(line)
        except OSError as err:
            raise _WriteFailed(err) from err
        self.progress.feed_line(line)
        self._failures(self.live_parser.feed(line))
        if self.on_line is not None:
            self.on_line(stream, line)

    def _failures(self, rows: list[dict[str, Any]]) -> None:
        if self.on_failure is not None:
            for row in rows:
                self.on_failure(row)

    def run(self) -> BuildResult:
        warnings = enforce(self.command)
        tool_path = resolve_tool(self.command.tool)
        cwd = self.cwd.resolve()
        for art in expected_artifacts(place_paths(self.command, cwd, cwd)):
            if art.role == "input" and not art.path.is_file():
                raise FileNotFoundError(
                    f"--{art.flag}: {art.kind} {art.path} does not exist ({art.note or 'given'}); "
                    "build or copy it first"
                )
        writer = RunWriter(Path(self.runs_dir), self.label)
        cmd = place_paths(self.command, writer.path / "artifacts", cwd)
        cmd = TrtexecCommand(str(tool_path), cmd.flags, cmd.version)
        expected = expected_artifacts(cmd)
        before = {a.path: _stamp(a.path) for a in expected if a.role != "input"}
        claim = OutputClaim([a.path for a in expected if a.role == "output"
                             and not a.path.is_relative_to(writer.path)], f"run {writer.path}")
        try:
            claim.acquire()
        except OutputInUseError as err:  # another run writes the same --saveEngine
            writer.abandon("refused", str(err))
            self.progress.finish("refused")
            raise
        try:
            return self._run_claimed(writer, cmd, tool_path, warnings, expected, before)
        finally:
            claim.release()

    def _run_claimed(self, writer: RunWriter, cmd: TrtexecCommand, tool_path: Path,
                     warnings: list[BuildRuleFinding], expected: list[ExpectedArtifact],
                     before: dict[Path, tuple[int, int] | None]) -> BuildResult:
        """Run the tool and complete the run while this run holds its outputs' claims."""
        try:
            try:
                writer.write_json("command.json", {
                    "argv": cmd.argv(), "argv_as_given": self.command.argv(),
                    "tool_kind": cmd.tool_kind, "trt_version": str(cmd.version),
                    "cwd": str(self.cwd), "warnings": [str(w) for w in warnings],
                })
                writer.write_json("environment.json", environment_summary(tool_path, cmd))
            except OSError as err:
                raise _WriteFailed(err) from err
            self._runner = ProcessRunner(
                cmd.argv(), lambda s, ln: self._line(writer, s, ln),
                cwd=self.cwd, timeout_s=self.timeout_s, grace_s=self.grace_s,
            )
            if self._cancelled:
                self._runner.cancel()
            proc = self._runner.run()
        except KeyboardInterrupt as interrupt:
            what = str(interrupt) if isinstance(interrupt, SignalInterrupt) else "SIGINT"
            writer.abandon("cancelled", f"interrupted ({what}); process group ended")
            self.progress.finish("cancelled")
            raise
        except _WriteFailed as failed:
            raise self._write_failed(writer, failed.error) from failed.error
        except OSError as err:  # the tool could not be started
            writer.abandon("start_failed", str(err))
            raise BuildAbortedError(
                f"could not start {cmd.tool}: {err}. Check it is an executable trtexec; the "
                f"run record is kept in {writer.path}", writer.path,
            ) from err
        try:
            return self._complete(writer, cmd, proc, warnings, expected, before)
        except OSError as err:  # e.g. the disk filled up while writing result or manifest
            raise self._write_failed(writer, err) from err

    def _write_failed(self, writer: RunWriter, error: OSError) -> BuildAbortedError:
        note = writer.abandon("write_error", f"{error}")
        self.progress.finish("aborted")
        return BuildAbortedError(
            f"writing the run record failed: {error}. The tool was stopped (or had ended); the "
            f"partial log is kept in {writer.path}" + (f" ({note})" if note else "")
            + ". Free space (or choose another --runs folder) and run again.",
            writer.path,
        )

    def _complete(self, writer: RunWriter, cmd: TrtexecCommand, proc: ProcessResult,
                  warnings: list[BuildRuleFinding], expected: list[ExpectedArtifact],
                  before: dict[Path, tuple[int, int] | None]) -> BuildResult:
        self._failures(self.live_parser.finish())
        artifacts = [_artifact_entry(a, writer.path, before.get(a.path)) for a in expected]
        missing = [f"{a['kind']} {a['path']}" for a in artifacts
                   if a["role"] == "output" and not a["present"]]
        if proc.status != STATUS_EXITED:
            detail = {"timeout": f"timed out after {self.timeout_s} s; process group ended",
                      "cancelled": "cancelled; process group ended",
                      "signalled": f"the tool was killed by signal {-proc.returncode}"}
            writer.abandon(proc.status, detail.get(proc.status, proc.status))
            self.progress.finish(proc.status)
            return BuildResult(writer.path, proc, False, warnings, artifacts, missing)
        status = "passed" if proc.returncode == 0 and not missing else "failed"
        pair = _write_pair_manifest(cmd, expected) if status == "passed" else None
        if pair is not None:
            artifacts.append(_artifact_entry(
                ExpectedArtifact("pair_manifest", pair, "output", "saveEngine"), writer.path, None))
        result = {
            "exit_code": proc.returncode, "status": status, "duration_s": proc.duration_s,
            "started_utc": writer.started_utc, "finished_utc": utc_now(),
            "artifacts": artifacts, "missing_artifacts": missing,
            **record_failure_table(writer.path),
        }
        external = [{"path": a["path"], "kind": a["kind"], "role": a["role"]}
                    for a in artifacts if not a["inside_run"]]
        final = writer.finish(result, external)
        for a in artifacts:
            if a["inside_run"]:
                a["path"] = str(final / a["path"])
        self.progress.finish(status)
        return BuildResult(final, proc, True, warnings, artifacts, missing)


def _stamp(path: Path) -> tuple[int, int] | None:
    """(inode, mtime_ns) of an existing file, else None: tells a rewritten file from a stale one."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns)


def _artifact_entry(art: ExpectedArtifact, run_path: Path,
                    stamp_before: tuple[int, int] | None) -> dict[str, Any]:
    """``present``: an input exists, or an output exists and was (re)written by this run."""
    inside = art.path.is_relative_to(run_path)
    present = art.path.is_file()
    if present and art.role == "output" and stamp_before is not None:
        present = _stamp(art.path) != stamp_before  # same file as before the run: stale
    return {
        "kind": art.kind, "role": art.role, "flag": art.flag,
        "path": art.path.relative_to(run_path).as_posix() if inside else str(art.path),
        "inside_run": inside, "present": present,
    }


def _write_pair_manifest(cmd: TrtexecCommand, expected: list[ExpectedArtifact]) -> Path | None:
    """For a safe build that wrote engine + companion .so, write ``<engine>.pair.json``."""
    outputs = {a.kind: a.path for a in expected if a.role == "output"}
    if "engine" not in outputs or "companion_so" not in outputs:
        return None
    pair = SafeEnginePair(outputs["engine"], outputs["companion_so"])
    return pair.write_manifest(str(cmd.version), cmd.argv())


def run_build(command: TrtexecCommand, runs_dir: Path, **kwargs: Any) -> BuildResult:
    """Convenience: ``TrtexecBuild(command, runs_dir, **kwargs).run()``."""
    return TrtexecBuild(command, Path(runs_dir), **kwargs).run()
