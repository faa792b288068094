"""The trtexec / trtexec_safe executor: run a built engine, keep what it wrote or printed as a run
directory, and read it back with the same loaders.

It composes only the inference flags the profiler needs and hands the rest to the builds job's
trtexec model (:mod:`trtsafe_lab.trtexec`): versions (:class:`TrtVersion`, banner detection),
the 11.x and safety rules (:func:`~trtsafe_lab.trtexec.rules.enforce`: refusals raise, warnings
are recorded) and the process runner (streams the log, ends the whole process group on Ctrl-C or
timeout). Flags: ``--loadEngine`` (+ ``--loadEngineSo`` for safe engines), ``--exportTimes``,
``--exportProfile``, ``--exportLayerInfo``, ``--separateProfileRun`` (10.x trtexec only; always
on in 11.x), CUDA graphs (``--useCudaGraph`` before 11.x; on by default in 11.x, where
``--noCudaGraph`` turns them off). trtexec_safe (NVIDIA's ``samples/trtSafeExec/trtSafeExec.cpp``)
has no export flags: it gets only flags its parser accepts (checked against the source-derived
flag table) and its printed lines are parsed (:mod:`trtsafe_lab.profile.safe_summary`).
NOT verified with a real trtexec / trtexec_safe: tested with labelled test doubles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trtsafe_lab.companion import companion_so_for
from trtsafe_lab.profile.identity import engine_record
from trtsafe_lab.profile.rundir import TIMING
from trtsafe_lab.profile.safe_summary import parse_safe_log
from trtsafe_lab.profile.summary import parse_summary
from trtsafe_lab.rundir import staged_run_dir, write_run_manifest
from trtsafe_lab.trtexec.flag_table import load_table
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags, tool_kind_of
from trtsafe_lab.trtexec.rules import enforce
from trtsafe_lab.trtexec.runner import run_process
from trtsafe_lab.trtexec.version import TrtVersion, detect_version

STATS_PER_ITERATION = "per-iteration (trtexec --exportTimes)"
STATS_SUMMARY_ONLY = ("summary-only (one performance summary per run: the samples are the "
                      "medians of the repeats; no per-iteration distribution)")


def trtexec_command(
    engine: Path, *, version: TrtVersion, executable: str = "trtexec",
    safe: bool = False, companion_so: Path | None = None, use_graph: bool = True,
    export_prefix: Path | None = None, extra: Sequence[str] = (),
) -> TrtexecCommand:
    """The command that profiles ``engine``, checked against the flag table of the tool and
    version and the trtexec rules (a refusal raises ``RuleViolation``).

    trtexec: writes ``<export_prefix>.timing/.profile/.graph.json``. trtexec_safe
    (``executable`` named ``trtexec_safe*``) has no export flags: it gets ``--loadEngine``,
    ``--loadEngineSo`` (11.3+, or when given), ``--avgRuns=1`` (so each printed iteration line is
    one inference) and the CUDA-graph flag of its version (``--noCudaGraph`` in 11.x when
    ``use_graph`` is False; ``--useCudaGraph`` in 10.x when it is True)."""
    if is_safe_tool(executable):
        return _safe_command(engine, version=version, executable=executable,
                             companion_so=companion_so, use_graph=use_graph, extra=extra)
    if export_prefix is None:
        raise ValueError("trtexec profiling needs export_prefix (where the exports go)")
    args = [f"--loadEngine={engine}"]
    if safe:
        args += ["--safe", f"--loadEngineSo={companion_so_for(engine, companion_so)}"]
    args += [f"--exportTimes={export_prefix}.timing.json",
             f"--exportProfile={export_prefix}.profile.json",
             f"--exportLayerInfo={export_prefix}.graph.json"]
    if not version.is_11x:
        args.append("--separateProfileRun")
        if use_graph:
            args.append("--useCudaGraph")
    elif not use_graph:
        args.append("--noCudaGraph")
    command = TrtexecCommand(executable, tuple(parse_flags([*args, *extra])), version)
    enforce(command)
    return command


def is_safe_tool(executable: str) -> bool:
    """True for trtexec_safe (by file name, as :class:`TrtexecCommand` decides)."""
    return tool_kind_of(executable) == "trtexec_safe"


def _safe_command(engine: Path, *, version: TrtVersion, executable: str,
                  companion_so: Path | None, use_graph: bool,
                  extra: Sequence[str]) -> TrtexecCommand:
    table = load_table("trtexec_safe", version)
    args = [f"--loadEngine={engine}"]
    if companion_so is not None or version.has_companion_so:
        args.append(f"--loadEngineSo={companion_so_for(engine, companion_so)}")
    if not any(a.startswith("--avgRuns=") for a in extra):
        args.append("--avgRuns=1")
    graph_on = table.get("--useCudaGraph")
    if not use_graph and table.get("--noCudaGraph") is not None:
        args.append("--noCudaGraph")
    elif use_graph and graph_on is not None and graph_on.status == "active":
        args.append("--useCudaGraph")  # 10.x: CUDA graphs are off unless asked for
    command = TrtexecCommand(executable, tuple(parse_flags([*args, *extra])), version)
    enforce(command)
    return command


def run_trtexec(
    engine: Path, out_dir: Path, name: str, *, version: TrtVersion | None = None,
    executable: str = "trtexec", safe: bool = False, companion_so: Path | None = None,
    use_graph: bool = True, extra: Sequence[str] = (), timeout_s: float | None = None,
    repeat: int = 1, network: Path | None = None, shapes: str | None = None,
) -> Path:
    """Run trtexec / trtexec_safe into a run directory (written under a temporary name, renamed
    when complete) and return its path. ``version`` None: read from ``<executable> --help``.
    The manifest's ``workload`` (:func:`~trtsafe_lab.profile.identity.engine_record`, the engine
    hashed once) names ``network`` (the ONNX file the engine was built from) when given, and
    ``shapes`` (else the ``--shapes=`` of ``extra``).

    trtexec: ``run.timing.json``/``run.profile.json``/``run.graph.json``, ``trtexec.log`` and a
    manifest with the argv, exit code, rule warnings and the parsed performance summary.
    trtexec_safe: see :func:`run_trtexec_safe` (``repeat`` runs)."""
    if version is None:
        version = detect_version(executable)
    if is_safe_tool(executable):
        return run_trtexec_safe(engine, out_dir, name, version=version, executable=executable,
                                companion_so=companion_so, use_graph=use_graph, extra=extra,
                                timeout_s=timeout_s, repeat=repeat, network=network,
                                shapes=shapes)
    if repeat != 1:
        raise ValueError("repeat applies to trtexec_safe runs; run trtexec once per run name")
    final = out_dir / name
    with staged_run_dir(out_dir, name, "trtexec-profile") as tmp:
        command = trtexec_command(engine, version=version, executable=executable, safe=safe,
                                  companion_so=companion_so, use_graph=use_graph,
                                  export_prefix=tmp / "run", extra=extra)
        warnings = [str(w) for w in enforce(command)]
        argv = command.argv()
        lines: list[str] = []
        result = run_process(argv, _collector(lines), timeout_s=timeout_s)
        log = "\n".join(lines) + "\n"
        (tmp / "trtexec.log").write_text(log)
        if result.returncode != 0 or not (tmp / "run.timing.json").is_file():
            tail = "\n".join(lines[-15:])
            raise RuntimeError(f"{argv[0]} ended with {result.returncode} ({result.status}) and "
                               f"{'wrote' if (tmp / 'run.timing.json').is_file() else 'wrote no'}"
                               f" timing export; its full log is kept in {tmp}; last lines:\n"
                               f"{tail}")
        try:
            summary = parse_summary(log)
            perf = {"table": summary.table.to_dict("records"), **summary.scalars,
                    "warnings": summary.warnings}
        except ValueError:
            perf = None
        final_argv = [a.replace(str(tmp), str(final)) for a in argv]
        write_run_manifest(tmp, "trtexec-profile", name, {
            "executor": {"executor": executable}, "command": final_argv,
            "returncode": result.returncode, "trt_version": str(version),
            "rule_warnings": warnings, "performance_summary": perf,
            "statistics": STATS_PER_ITERATION, "timing": {"use_graph": use_graph},
            "workload": _workload(engine, version, executable, extra, network, shapes)})
    return final


def run_trtexec_safe(
    engine: Path, out_dir: Path, name: str, *, version: TrtVersion, executable: str,
    companion_so: Path | None = None, use_graph: bool = True, extra: Sequence[str] = (),
    timeout_s: float | None = None, repeat: int = 1, network: Path | None = None,
    shapes: str | None = None,
) -> Path:
    """Run trtexec_safe ``repeat`` times into one run directory (``network``, ``shapes``: as
    for :func:`run_trtexec`).

    trtexec_safe writes no export files; everything comes from its log
    (:func:`~trtsafe_lab.profile.safe_summary.parse_safe_log`): ``trtexec_safe.<i>.log`` per
    repeat, the summaries in the manifest, and ``run.timing.json`` with one record per printed
    iteration line (``computeMs`` = GPU latency, ``latencyMs`` = host latency, ``enqueueMs``,
    ``repeat``); with the default ``--avgRuns=1`` each is one inference. The manifest's
    ``statistics`` says what the samples are: ``per-iteration (trtexec_safe log, avgRuns=N)``,
    or ``summary-only`` when the log printed no iteration lines: then the samples are the
    medians of the repeats (``summary_medians``), one per repeat, and ``run.timing.json`` holds
    those (marked); a single run has no distribution and no bootstrap CI.
    A repeat whose log has no ``&&&& PASSED`` banner fails the run (trtexec_safe exits 0 even
    when it FAILED)."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    command = trtexec_command(engine, version=version, executable=executable,
                              companion_so=companion_so, use_graph=use_graph, extra=extra)
    warnings = [str(w) for w in enforce(command)]
    argv = command.argv()
    final = out_dir / name
    with staged_run_dir(out_dir, name, "trtexec-profile") as tmp:
        records: list[dict[str, float]] = []
        repeats: list[dict[str, Any]] = []
        avg_runs: set[int] = set()
        for index in range(1, repeat + 1):
            lines: list[str] = []
            result = run_process(argv, _collector(lines), timeout_s=timeout_s)
            log = "\n".join(lines) + "\n"
            log_name = f"trtexec_safe.{index}.log"
            (tmp / log_name).write_text(log)
            parsed = parse_safe_log(log)
            if result.returncode != 0 or parsed.outcome != "PASSED" or parsed.summary is None:
                tail = "\n".join(lines[-15:])
                raise RuntimeError(
                    f"{argv[0]} (repeat {index}) ended with {result.returncode} "
                    f"({result.status}), banner {parsed.outcome or 'missing'}, "
                    f"{'a' if parsed.summary is not None else 'no'} performance summary; its "
                    f"log is kept in {tmp / log_name}; last lines:\n{tail}")
            if parsed.avg_runs is not None:
                avg_runs.add(parsed.avg_runs)
            for row in parsed.iterations.itertuples(index=False):
                records.append({"computeMs": row.compute_ms, "latencyMs": row.latency_ms,
                                "enqueueMs": row.enqueue_ms, "repeat": index})
            repeats.append({"log": log_name, "returncode": result.returncode,
                            "iterations_printed": len(parsed.iterations),
                            "avg_runs": parsed.avg_runs, "percentile": parsed.percentile,
                            "unstable_cv_pct": parsed.unstable_cv_pct,
                            "table": parsed.summary.table.to_dict("records"),
                            **parsed.summary.scalars})
        if records and all(r["iterations_printed"] for r in repeats):
            statistics = (f"per-iteration (trtexec_safe log lines, avgRuns="
                          f"{'/'.join(map(str, sorted(avg_runs)))})")
        else:
            statistics = STATS_SUMMARY_ONLY
            records = [_median_record(r, i) for i, r in enumerate(repeats, 1)]
        (tmp / TIMING).write_text(json.dumps(records))
        write_run_manifest(tmp, "trtexec-profile", name, {
            "executor": {"executor": executable, "tool": "trtexec_safe"}, "command": argv,
            "trt_version": str(version), "rule_warnings": warnings, "statistics": statistics,
            "repeat": repeat, "repeats": repeats, "performance_summary": repeats[-1],
            "timing": {"use_graph": use_graph},
            "workload": _workload(engine, version, executable, extra, network, shapes)})
    return final


def _workload(engine: Path, version: TrtVersion, executable: str, extra: Sequence[str],
              network: Path | None, shapes: str | None) -> dict[str, Any]:
    """What the run measured (engine path and SHA-256, shapes, version, tool; the network it
    was built from when known), so runs of different engines are told apart by ``profile
    compare`` and engines of one network compare."""
    if shapes is None:
        shapes = next((a.split("=", 1)[1] for a in extra if a.startswith("--shapes=")), None)
    return engine_record(Path(engine), shapes=shapes, trt_version=str(version),
                         tool=Path(executable).name, network=network)


def _collector(lines: list[str]) -> Callable[[str, str], None]:
    """A line callback that appends each line to ``lines``."""
    def collect(_stream: str, line: str) -> None:
        lines.append(line)
    return collect


def _median_record(summary: dict[str, Any], index: int) -> dict[str, float]:
    medians = {row["metric"]: row["median_ms"] for row in summary["table"]}
    return {"computeMs": medians["gpu_compute_time"], "latencyMs": medians["host_time"],
            "enqueueMs": medians["enqueue_time"], "repeat": index, "summaryMedian": 1}
