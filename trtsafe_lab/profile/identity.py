"""What an engine run measured, as its manifest's ``workload`` entry (no TensorRT needed).

:func:`engine_record` is written by every engine run (the TensorRT runtime executor, the
engine-family sweep); :mod:`trtsafe_lab.profile.workload` reads it back to decide which runs
compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trtsafe_lab.rundir import sha256_file


def engine_record(engine: Path, *, shapes: Mapping[str, Sequence[int]] | str | None,
                  trt_version: str | None, tool: str, network: Path | None = None
                  ) -> dict[str, Any]:
    """The ``workload`` manifest entry of an engine run: engine path and SHA-256, input shapes,
    TensorRT version and tool; with ``network`` (the ONNX file it was built from) also its
    SHA-256, so that engines built from one network with different settings compare."""
    record: dict[str, Any] = {
        "kind": "engine", "engine": str(engine), "engine_sha256": sha256_file(engine),
        "shapes": shapes if isinstance(shapes, str) or shapes is None else
        ";".join(f"{k}:{'x'.join(str(int(d)) for d in v)}" for k, v in shapes.items()),
        "trt_version": trt_version, "tool": tool}
    if network is not None:
        record.update(network=str(network), network_name=Path(network).name,
                      network_sha256=sha256_file(network))
    return record
