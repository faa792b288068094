"""The trtexec / trtexec_safe executor: run a built engine with the export flags, keep what it
wrote as a run directory, and read it back with the same loaders.

Kept minimal on purpose: the builds job owns trtexec's full command model and process runner;
this composes only the inference flags the profiler needs:
``--loadEngine`` (+ ``--loadEngineSo`` for safe engines), ``--exportTimes``, ``--exportProfile``,
``--exportLayerInfo``, ``--separateProfileRun`` (10.x trtexec; always on and deprecated in
trtexec_safe), CUDA graphs (``--useCudaGraph`` before 11.x; on by default in 11.x, where
``--noCudaGraph`` turns them off). NOT verified with a real trtexec: tested with a labelled test
double that replays real exports.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from trtsafe_lab.profile.rundir import MANIFEST, SCHEMA
from trtsafe_lab.profile.summary import parse_summary

_BANNER = re.compile(r"TensorRT\.trtexec(?:_safe)? \[TensorRT v(\d+)\]")


def version_from_banner(text: str) -> tuple[int, int] | None:
    """(major, minor) from trtexec's ``&&&& RUNNING TensorRT.trtexec [TensorRT v100200]``
    banner (v8401 = 8.4, v100200 = 10.2, v101601 = 10.16), or None."""
    hit = _BANNER.search(text)
    if not hit:
        return None
    code = int(hit.group(1))
    if code >= 100000:  # 10.x+: major * 10000 + minor * 100 + patch (v101601 = 10.16.1)
        return code // 10000, (code // 100) % 100
    return code // 1000, (code // 100) % 10  # 8.x: v8401 = 8.4.1


def trtexec_argv(
    engine: Path, *, version: tuple[int, int], executable: str = "trtexec",
    safe: bool = False, companion_so: Path | None = None, use_graph: bool = True,
    export_prefix: Path, extra: Sequence[str] = (),
) -> list[str]:
    """The argv that profiles ``engine`` and writes ``<prefix>.timing/.profile/.graph.json``."""
    tool_is_safe = Path(executable).name.startswith("trtexec_safe")
    argv = [executable, f"--loadEngine={engine}"]
    if safe or tool_is_safe:
        if version < (11, 3):
            raise ValueError(f"safe engines with a companion .so need TensorRT >= 11.3, "
                             f"not {version[0]}.{version[1]}")
        if not tool_is_safe:
            argv.append("--safe")
        so = companion_so or Path(f"{engine}.so")
        argv.append(f"--loadEngineSo={so}")
    argv += [f"--exportTimes={export_prefix}.timing.json",
             f"--exportProfile={export_prefix}.profile.json",
             f"--exportLayerInfo={export_prefix}.graph.json"]
    if not tool_is_safe and version < (11, 0):
        argv.append("--separateProfileRun")
    if version < (11, 0):
        if use_graph:
            argv.append("--useCudaGraph")
    elif not use_graph:
        argv.append("--noCudaGraph")
    return [*argv, *extra]


def run_trtexec(
    engine: Path, out_dir: Path, name: str, *, version: tuple[int, int],
    executable: str = "trtexec", safe: bool = False, companion_so: Path | None = None,
    use_graph: bool = True, extra: Sequence[str] = (), timeout_s: float | None = None,
) -> Path:
    """Run trtexec into a run directory (written under a temporary name, renamed when
    complete): ``run.timing.json``/``run.profile.json``/``run.graph.json``, ``trtexec.log``,
    and a manifest with the argv, exit code and the parsed performance summary."""
    final = out_dir / name
    if final.exists():
        raise FileExistsError(f"run directory {final} already exists")
    tmp = out_dir / f".{name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        argv = trtexec_argv(engine, version=version, executable=executable, safe=safe,
                            companion_so=companion_so, use_graph=use_graph,
                            export_prefix=tmp / "run", extra=extra)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s,
                              check=False)
        log = proc.stdout + proc.stderr
        (tmp / "trtexec.log").write_text(log)
        if proc.returncode != 0 or not (tmp / "run.timing.json").is_file():
            tail = "\n".join(log.splitlines()[-15:])
            raise RuntimeError(f"{argv[0]} exited with {proc.returncode} and "
                               f"{'wrote' if (tmp / 'run.timing.json').is_file() else 'wrote no'}"
                               f" timing export; last lines of its log:\n{tail}")
        try:
            summary = parse_summary(log)
            perf = {"table": summary.table.to_dict("records"), **summary.scalars,
                    "warnings": summary.warnings}
        except ValueError:
            perf = None
        final_argv = [a.replace(str(tmp), str(final)) for a in argv]
        manifest = {"schema": SCHEMA, "name": name, "executor": {"executor": executable},
                    "command": final_argv, "returncode": proc.returncode,
                    "trt_version": list(version), "performance_summary": perf,
                    "timing": {"use_graph": use_graph},
                    "created_utc": dt.datetime.now(dt.timezone.utc).isoformat(
                        timespec="seconds")}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1))
        tmp.rename(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
