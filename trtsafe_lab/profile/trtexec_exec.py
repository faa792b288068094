"""The trtexec / trtexec_safe executor: run a built engine with the export flags, keep what it
wrote as a run directory, and read it back with the same loaders.

It composes only the inference flags the profiler needs and hands the rest to the builds job's
trtexec model (:mod:`trtsafe_lab.trtexec`): versions (:class:`TrtVersion`, banner detection),
the 11.x and safety rules (:func:`~trtsafe_lab.trtexec.rules.enforce`: refusals raise, warnings
are recorded) and the process runner (streams the log, ends the whole process group on Ctrl-C or
timeout). Flags: ``--loadEngine`` (+ ``--loadEngineSo`` for safe engines), ``--exportTimes``,
``--exportProfile``, ``--exportLayerInfo``, ``--separateProfileRun`` (10.x trtexec only; always
on in 11.x), CUDA graphs (``--useCudaGraph`` before 11.x; on by default in 11.x, where
``--noCudaGraph`` turns them off). NOT verified with a real trtexec: tested with a labelled test
double that replays real exports.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from trtsafe_lab.profile.summary import parse_summary
from trtsafe_lab.rundir import staged_run_dir, write_run_manifest
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.rules import enforce
from trtsafe_lab.trtexec.runner import run_process
from trtsafe_lab.trtexec.version import TrtVersion, detect_version


def trtexec_command(
    engine: Path, *, version: TrtVersion, executable: str = "trtexec",
    safe: bool = False, companion_so: Path | None = None, use_graph: bool = True,
    export_prefix: Path, extra: Sequence[str] = (),
) -> TrtexecCommand:
    """The command that profiles ``engine`` and writes ``<prefix>.timing/.profile/.graph.json``,
    checked against the trtexec rules (a refusal raises ``RuleViolation``)."""
    tool_is_safe = Path(executable).name.startswith("trtexec_safe")
    args = [f"--loadEngine={engine}"]
    if safe or tool_is_safe:
        if not tool_is_safe:
            args.append("--safe")
        args.append(f"--loadEngineSo={companion_so or Path(f'{engine}.so')}")
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

def run_trtexec(
    engine: Path, out_dir: Path, name: str, *, version: TrtVersion | None = None,
    executable: str = "trtexec", safe: bool = False, companion_so: Path | None = None,
    use_graph: bool = True, extra: Sequence[str] = (), timeout_s: float | None = None,
) -> Path:
    """Run trtexec into a run directory (written under a temporary name, renamed when
    complete): ``run.timing.json``/``run.profile.json``/``run.graph.json``, ``trtexec.log``,
    and a manifest with the argv, exit code, rule warnings and the parsed performance summary.
    ``version`` None: read from ``<executable> --help``'s banner."""
    if version is None:
        version = detect_version(executable)
    final = out_dir / name
    with staged_run_dir(out_dir, name) as tmp:
        command = trtexec_command(engine, version=version, executable=executable, safe=safe,
                                  companion_so=companion_so, use_graph=use_graph,
                                  export_prefix=tmp / "run", extra=extra)
        warnings = [str(w) for w in enforce(command)]
        argv = command.argv()
        lines: list[str] = []
        result = run_process(argv, lambda _stream, line: lines.append(line),
                             timeout_s=timeout_s)
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
            "timing": {"use_graph": use_graph}})
    return final
