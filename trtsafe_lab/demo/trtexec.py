"""Demo step: what ``trtsafe-lab build --dry-run`` says about a safe 11.4 build and about a
10.x-style command on 11.4. Nothing is run: no trtexec, no TensorRT."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from trtsafe_lab.trtexec.dry_run import describe_command
from trtsafe_lab.trtexec.options import TrtexecCommand, TrtexecOptions, parse_flags
from trtsafe_lab.trtexec.rules import check_command
from trtsafe_lab.trtexec.version import TrtVersion

V114 = TrtVersion(11, 4)
# A 10.x-era command line as people paste it into an 11.4 bring-up.
OLD_STYLE = ["--onnx=model.onnx", "--fp16", "--int8", "--calib=cache.bin", "--restricted",
             "--saveEngine=model.engine", "--saveEngineSo=model.so", "--maxAuxStreams=auto",
             "--useSpinWait"]


def run_demo(out_dir: Path) -> list[Path]:
    """For a safe 11.4 build, a 10.x-style command and a trtexec_safe run: the dry-run text
    (``.dry-run.txt``) and the rule findings (``.findings.json``). Returns the files written."""
    safe = TrtexecOptions(
        onnx=Path("model.onnx"), save_engine=Path("model.engine"), safe=True, max_aux_streams=0,
        timing_cache_file=Path("model.timing.cache"), profiling_verbosity="detailed",
        export_layer_info=Path("model.layers.json"), skip_inference=True,
    ).to_command(V114)
    old = TrtexecCommand("trtexec", tuple(parse_flags(OLD_STYLE)), V114)
    safe_run = TrtexecCommand("trtexec_safe", tuple(parse_flags(
        ["--loadEngine=model.engine", "--useCudaGraph", "--separateProfileRun"])), V114)
    written = []
    for name, cmd in (("safe-build-11.4", safe), ("10x-style-on-11.4", old),
                      ("trtexec_safe-run-11.4", safe_run)):
        text = out_dir / f"{name}.dry-run.txt"
        text.write_text(describe_command(cmd, "given") + "\n", encoding="utf-8")
        findings = out_dir / f"{name}.findings.json"
        findings.write_text(json.dumps([asdict(f) for f in check_command(cmd)], indent=2) + "\n",
                            encoding="utf-8")
        written += [text, findings]
    return written
