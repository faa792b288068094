"""Aux-stream sweeps: latency against memory for each setting, with the speedup and its CI.

Three sources, one table (:func:`sweep_table`) and one Pareto plot
(:func:`trtsafe_lab.profile.plots.plot_pareto`):

- :func:`sweep_reference`: the reference workload at several aux-stream counts (GPU);
- :func:`sweep_engine_family`: one network built by trtexec with ``--maxAuxStreams`` = each
  setting (through the builds job, :func:`trtsafe_lab.sweep.sweep_aux_streams`: one
  build run directory per setting, one shared timing cache), each engine then profiled by
  trtexec into its own profile run directory;
- any recorded runs (:func:`sweep_table` on loaded runs).

:func:`sweep_table` columns (:data:`SWEEP_TABLE_COLUMNS`): ``setting`` (the aux-stream count or
``maxAuxStreams`` value; -1 = builder heuristics), ``run``, ``workload``, ``aux_streams_used``
(what the engine or workload actually used: the run's ``num_aux_streams``, else the build log's
"Number of aux streams is N"; 0 when the log says multi-stream was disabled), ``p50_ms``,
``p95_ms``, ``p99_ms``, ``memory_bytes`` and ``memory_source`` (the build log's
``Total Activation Memory``, else the run's recorded device memory: the workload's buffers or the
engine's device memory + IO), ``speedup`` / ``speedup_ci_low`` / ``speedup_ci_high`` (median
speedup against the setting-0 run, else the first, bootstrap 95% CI), ``on_pareto_front`` (no
other run is both faster and smaller).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.logs.build_summary import summarize_build
from trtsafe_lab.logs.columns import ACTIVATION_MEMORY_BYTES, AUX_STREAMS, MULTI_STREAM_DISABLED
from trtsafe_lab.profile.compare import compare_runs
from trtsafe_lab.profile.loaders import Run, load_profile_run
from trtsafe_lab.rundir import LOG_NAME, annotate_run  # the sweep copies build.log in

SWEEP_TABLE_COLUMNS = ("setting", "run", "workload", "aux_streams_used", "p50_ms", "p95_ms",
                       "p99_ms", "memory_bytes", "memory_source", "speedup", "speedup_ci_low",
                       "speedup_ci_high", "on_pareto_front")
def build_log_facts(text: str) -> dict[str, int | None]:
    """The aux-stream and memory facts a sweep needs from a build log, read by the logs job's
    build summary (:func:`trtsafe_lab.logs.build_summary.summarize_build`):
    ``activation_memory_bytes`` (the last ``Total Activation Memory: N``) and ``aux_streams``
    ("Number of aux streams is N"; 0 when TensorRT says multi-stream was disabled). None where
    the log does not say.
    """
    row = summarize_build(text.splitlines())
    used = row[AUX_STREAMS]
    if used is None and row[MULTI_STREAM_DISABLED]:
        used = 0
    return {ACTIVATION_MEMORY_BYTES: row[ACTIVATION_MEMORY_BYTES], AUX_STREAMS: used}


def _setting(run: Run) -> Any:
    info = run.info
    if "sweep_setting" in info:
        return info["sweep_setting"]
    return info.get("num_aux_streams")


def _build_facts(run: Run) -> dict[str, int | None]:
    log = run.path / LOG_NAME if run.path.is_dir() else None
    if log is None or not log.is_file():
        return {ACTIVATION_MEMORY_BYTES: None, AUX_STREAMS: None}
    return build_log_facts(log.read_text(errors="replace"))


def pareto_front(latency: Sequence[float], memory: Sequence[float]) -> list[bool]:
    """True for points no other point beats on both (lower or equal in both, lower in one)."""
    pts = list(zip(latency, memory, strict=True))
    return [not any((a <= x and b <= y) and (a < x or b < y) for a, b in pts) for x, y in pts]


def sweep_table(runs: Sequence[Run], *, metric: str = "latency",
                allow_mixed: bool = False) -> pd.DataFrame:
    """One row per run of a sweep (see the module docstring); runs of one workload unless
    ``allow_mixed`` (then speedups are within each workload, as in ``compare_runs``)."""
    if not runs:
        raise ValueError("sweep_table needs at least one run")
    settings = [_setting(r) for r in runs]
    zero = [r.name for r, s in zip(runs, settings, strict=True) if s == 0]
    table = compare_runs(runs, metric=metric, baseline=zero[0] if zero else None,
                         allow_mixed=allow_mixed)
    rows = []
    for run, setting, row in zip(runs, settings, table.to_dict("records"), strict=True):
        facts = _build_facts(run)
        used = run.info.get("num_aux_streams")
        if used is None:
            used = facts[AUX_STREAMS]
        if facts[ACTIVATION_MEMORY_BYTES] is not None:
            memory, source = facts[ACTIVATION_MEMORY_BYTES], "build log: Total Activation Memory"
        elif run.info.get("device_memory_bytes") is not None:
            kind = (run.info.get("executor") or {}).get("executor")
            memory = run.info["device_memory_bytes"]
            source = "workload buffers" if kind == "reference" else "engine device memory + IO"
        else:
            memory, source = None, "not recorded"
        rows.append({"setting": setting, "run": run.name, "workload": row["workload"],
                     "aux_streams_used": used, "p50_ms": row["median_ms"],
                     "p95_ms": row["p95_ms"], "p99_ms": row["p99_ms"], "memory_bytes": memory,
                     "memory_source": source, "speedup": row["speedup_vs_baseline"],
                     "speedup_ci_low": row["speedup_ci_low"],
                     "speedup_ci_high": row["speedup_ci_high"]})
    out = pd.DataFrame(rows)
    known = out["memory_bytes"].notna()
    out["on_pareto_front"] = False
    if known.any():
        out.loc[known, "on_pareto_front"] = pareto_front(
            out.loc[known, "p50_ms"].tolist(),
            out.loc[known, "memory_bytes"].astype(float).tolist())
    return out.reindex(columns=list(SWEEP_TABLE_COLUMNS))


def sweep_reference(spec: Any, aux_counts: Sequence[int], timing: Any, out_dir: Path, *,
                    command: Sequence[str] = (), device: int = 0, trace: bool = False
                    ) -> tuple[pd.DataFrame, list[Path]]:
    """Run the reference workload ``spec`` at each aux count (GPU; see
    :func:`~trtsafe_lab.profile.runner.run_reference`); returns the sweep table and the run
    directories."""
    from trtsafe_lab.profile.runner import run_reference

    paths = run_reference(spec, aux_counts, timing, out_dir, command=command, device=device,
                          trace=trace)
    return sweep_table([load_profile_run(p) for p in paths]), paths


HEURISTIC = -1  # maxAuxStreams setting: leave the flag out, the builder's heuristics decide
ENGINE_SWEEP_COLUMNS = ("setting", "build_status", "build_run_dir", "engine_path",
                        "profile_run_dir")


def _heuristic_build(command: Any, builds_dir: Path, cache: Path, **build_kwargs: Any
                     ) -> dict[str, Any]:
    """The build with ``--maxAuxStreams`` left out (trtexec's default: heuristics), sharing the
    sweep's timing cache; a row like the builds job's sweep table."""
    from trtsafe_lab.sweep import aux_stream_commands
    from trtsafe_lab.trtexec.build import TrtexecBuild
    from trtsafe_lab.trtexec.options import Flag, TrtexecCommand

    base = aux_stream_commands(command, [0], cache)[0]
    flags = []
    for flag in base.flags:
        if flag.name == "maxAuxStreams":
            continue
        if flag.name in ("saveEngine", "saveEngineSo") and flag.value:
            flag = Flag(flag.name, flag.value.replace("-aux0", "-auxheuristic"))
        flags.append(flag)
    result = TrtexecBuild(TrtexecCommand(base.tool, tuple(flags), base.version), builds_dir,
                          label="auxheuristic", **build_kwargs).run()
    paths = {a["kind"]: a["path"] for a in result.artifacts
             if a["role"] == "output" and a["present"]}
    return {"max_aux_streams": HEURISTIC, "status": "passed" if result.ok else "failed",
            "run_dir": str(result.run_dir), "engine_path": paths.get("engine"),
            "companion_so_path": paths.get("companion_so")}


def sweep_engine_family(command: Any, runs_dir: Path,
                        values: Sequence[int] = (0, 1, 2, 4, HEURISTIC), *,
                        timing_cache: Path | None = None, profile_extra: Sequence[str] = (),
                        **build_kwargs: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Build ``command`` (a :class:`~trtsafe_lab.trtexec.options.TrtexecCommand` with
    ``--onnx``) once per ``--maxAuxStreams`` value through the builds job (one build run
    directory each under ``runs_dir/builds``, one timing cache), profile each engine with the
    same tool (one profile run directory each under ``runs_dir/profiles``, holding the build
    log as ``build.log`` and the workload: the ONNX file's SHA-256, so the engines compare).
    ``-1`` builds without the flag (the builder's heuristics; the builds job refuses
    ``--maxAuxStreams=-1``). Returns (:func:`sweep_table` of the profiled runs, the per-setting
    build table with :data:`ENGINE_SWEEP_COLUMNS`). Failed builds stay in the build table and
    are not profiled."""
    from trtsafe_lab.profile.trtexec_exec import run_trtexec
    from trtsafe_lab.sweep import sweep_aux_streams as build_sweep

    onnx = command.value("onnx")
    if not onnx:
        raise ValueError("sweep_engine_family needs --onnx=MODEL in the command: the sweep "
                         "compares engines built from one network")
    runs_dir = Path(runs_dir)
    cache = (timing_cache or runs_dir / "sweep.timing.cache").resolve()
    explicit = [v for v in values if v != HEURISTIC]
    if any(v < 0 for v in explicit):
        raise ValueError(f"maxAuxStreams settings are >= 0 or {HEURISTIC} (heuristics), got "
                         f"{list(values)}")
    builds = build_sweep(command, runs_dir / "builds", explicit, cache,
                         **build_kwargs).to_dict("records") if explicit else []
    if HEURISTIC in values:
        builds.append(_heuristic_build(command, runs_dir / "builds", cache, **build_kwargs))
    rows, runs = [], []
    for build in builds:
        row = {"setting": build["max_aux_streams"], "build_status": build["status"],
               "build_run_dir": build["run_dir"], "engine_path": build["engine_path"],
               "profile_run_dir": None}
        rows.append(row)
        if build["status"] != "passed" or not build["engine_path"]:
            continue
        engine = Path(build["engine_path"])
        so = build.get("companion_so_path")
        profiled = run_trtexec(engine, runs_dir / "profiles", engine.stem,
                               version=command.version, executable=command.tool,
                               safe=command.is_safe, companion_so=Path(so) if so else None,
                               extra=profile_extra, network=Path(onnx),
                               shapes=command.value("shapes"))
        shutil.copyfile(Path(build["run_dir"]) / LOG_NAME, profiled / LOG_NAME)
        annotate_run(profiled, {"sweep_setting": row["setting"]})
        row["profile_run_dir"] = str(profiled)
        runs.append(load_profile_run(profiled))
    table = sweep_table(runs) if runs else pd.DataFrame(columns=list(SWEEP_TABLE_COLUMNS))
    return table, pd.DataFrame(rows, columns=list(ENGINE_SWEEP_COLUMNS))
