"""Helpers for the notebook / widget / report tests."""

from __future__ import annotations

import stat
from pathlib import Path

DOUBLE = """#!/bin/sh
# TEST DOUBLE for trtexec (not TensorRT): prints a banner, one error naming a layer, exits 1.
echo "&&&& RUNNING TensorRT.trtexec [TensorRT v110400] # trtexec $*"
echo "[11/30/2026-12:00:00] [I] Start parsing network model."
echo "[11/30/2026-12:00:01] [E] Error[10]: IBuilder::buildSerializedNetwork: Error Code 10: \
Internal Error (Could not find any implementation for node /backbone/conv1/Conv.)"
echo "&&&& FAILED TensorRT.trtexec [TensorRT v110400] # trtexec $*"
exit 1
"""


def _install(bin_dir: Path, script: str) -> Path:
    """Write ``script`` as an executable ``trtexec`` into ``bin_dir``; return ``bin_dir``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    tool = bin_dir / "trtexec"
    tool.write_text(script)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def install_trtexec_double(bin_dir: Path) -> Path:
    """Write the TEST DOUBLE ``trtexec`` (a shell script, not TensorRT) into ``bin_dir``."""
    return _install(bin_dir, DOUBLE)


SLOW_DOUBLE = """#!/bin/sh
# TEST DOUBLE for trtexec (not TensorRT): starts, then hangs until it is stopped.
echo "&&&& RUNNING TensorRT.trtexec [TensorRT v110400] # trtexec $*"
echo "[11/30/2026-12:00:00] [I] Start parsing network model."
exec sleep 120
"""


def install_slow_trtexec_double(bin_dir: Path) -> Path:
    """Write a TEST DOUBLE ``trtexec`` that never finishes by itself into ``bin_dir``."""
    return _install(bin_dir, SLOW_DOUBLE)
