"""Build the same network with ``maxAuxStreams`` = 0, 1, 2, ... sharing one timing cache.

For the profiling job: every engine of the sweep is a normal run directory; the returned table
has one row per build. Builds run one after another (they share the timing cache file, and the
GPU). All commands are checked against the 11.x rules before the first one runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.engine.builder import PythonBuildOptions, build_with_python_api
from trtsafe_lab.trtexec.build import TrtexecBuild
from trtsafe_lab.trtexec.options import Flag, TrtexecCommand
from trtsafe_lab.trtexec.rules import enforce

# Columns of a sweep table. duration_s is the build's wall time; engine_path / companion_so_path
# are None when the build did not write them; status is passed / failed / an incomplete status.
SWEEP_COLUMNS = (
    "max_aux_streams", "status", "exit_code", "duration_s", "run_dir", "engine_path",
    "companion_so_path",
)


def _suffixed(path: str, n: int) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}-aux{n}{p.suffix}"))


def aux_stream_commands(command: TrtexecCommand, values: Sequence[int],
                        timing_cache: Path) -> list[TrtexecCommand]:
    """One command per value: ``--maxAuxStreams=N``, engine (and .so) names suffixed ``-auxN``,
    ``--timingCacheFile`` set to the shared cache (absolute)."""
    drop = {"maxAuxStreams", "timingCacheFile"}
    out = []
    for n in values:
        flags = []
        for flag in command.flags:
            if flag.name in drop:
                continue
            if flag.name in ("saveEngine", "saveEngineSo") and flag.value:
                flag = Flag(flag.name, _suffixed(flag.value, n))
            flags.append(flag)
        flags += [Flag("maxAuxStreams", str(n)), Flag("timingCacheFile", str(timing_cache))]
        out.append(TrtexecCommand(command.tool, tuple(flags), command.version))
    return out


def sweep_aux_streams(command: TrtexecCommand, runs_dir: Path, values: Sequence[int] = (0, 1, 2),
                      timing_cache: Path | None = None, **build_kwargs: Any) -> pd.DataFrame:
    """Run ``command`` once per ``maxAuxStreams`` value with trtexec; see :data:`SWEEP_COLUMNS`."""
    runs_dir = Path(runs_dir)
    cache = (timing_cache or runs_dir / "sweep.timing.cache").resolve()
    commands = aux_stream_commands(command, values, cache)
    for cmd in commands:
        enforce(cmd)
    rows = []
    for n, cmd in zip(values, commands, strict=True):
        result = TrtexecBuild(cmd, runs_dir, label=f"aux{n}", **build_kwargs).run()
        paths = {a["kind"]: a["path"] for a in result.artifacts
                 if a["role"] == "output" and a["present"]}
        rows.append({
            "max_aux_streams": n,
            "status": "passed" if result.ok else (
                "failed" if result.complete else result.process.status),
            "exit_code": result.process.returncode, "duration_s": result.process.duration_s,
            "run_dir": str(result.run_dir), "engine_path": paths.get("engine"),
            "companion_so_path": paths.get("companion_so"),
        })
    return pd.DataFrame(rows, columns=list(SWEEP_COLUMNS))


def sweep_aux_streams_python(options: PythonBuildOptions, runs_dir: Path,
                             values: Sequence[int] = (0, 1, 2), timing_cache: Path | None = None,
                             **build_kwargs: Any) -> pd.DataFrame:
    """The same sweep through the TensorRT Python API (needs tensorrt); same columns."""
    runs_dir = Path(runs_dir)
    cache = (timing_cache or runs_dir / "sweep.timing.cache").resolve()
    rows = []
    for n in values:
        stem = Path(options.engine_name)
        opts = dataclasses.replace(options, max_aux_streams=n, timing_cache=cache,
                                   engine_name=f"{stem.stem}-aux{n}{stem.suffix}")
        result = build_with_python_api(opts, runs_dir, label=f"aux{n}", **build_kwargs)
        rows.append({
            "max_aux_streams": n, "status": "passed" if result.ok else "failed",
            "exit_code": 0 if result.ok else 1, "duration_s": result.duration_s,
            "run_dir": str(result.run_dir),
            "engine_path": str(result.engine) if result.engine else None,
            "companion_so_path": None,
        })
    return pd.DataFrame(rows, columns=list(SWEEP_COLUMNS))
