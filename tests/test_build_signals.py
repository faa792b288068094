"""Issue 15 #4: killing `trtsafe-lab build` orphans nothing.

Each test starts a real `trtsafe-lab build` process running the trtexec TEST DOUBLE in its "hang"
mode (the double spawns a child of its own and never ends), sends one signal to the build
process only, and checks /proc until the double and its child are gone (polled with a bound; no
timing assertion). SIGINT/SIGTERM/SIGHUP: the group is ended and the run kept as a partial run
with INCOMPLETE.json. SIGKILL: nothing can run in the killed process, so the tool dies through
PR_SET_PDEATHSIG and the watchdog ends its whole process group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from builds_support import build_shared_object, double_environment, process_running

BOUND_S = 60.0  # generous: the machine is shared; the poll returns as soon as the state is met


def poll(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + BOUND_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"still waiting after {BOUND_S} s for: {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP,
                                    signal.SIGINT])
def test_signal_to_build_leaves_no_survivor(tmp_path: Path, corpus_dir: Path,
                                            signum: int) -> None:
    so = build_shared_object(tmp_path / "companion.so")
    pidfile = tmp_path / "pids"
    env = {**os.environ,
           **double_environment(tmp_path, so, corpus_dir / "build-logs/cases/068.log"),
           "TRTEXEC_DOUBLE_MODE": "hang", "TRTEXEC_DOUBLE_PIDFILE": str(pidfile)}
    work = tmp_path / "work"
    work.mkdir()
    (work / "model.onnx").write_bytes(b"x")
    runs = tmp_path / "runs"
    build = subprocess.Popen(
        [sys.executable, "-m", "trtsafe_lab", "build", "--trt-version", "11.4", "--runs",
         str(runs), "--", "--onnx=model.onnx", "--safe", "--saveEngine=net.engine"],
        cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True)
    try:
        poll(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2,
             "the double to start and write its pids")
        leader, child = (int(p) for p in pidfile.read_text().split())
        assert process_running(leader) and process_running(child)
        build.send_signal(signum)
        code = build.wait(timeout=BOUND_S)
        poll(lambda: not process_running(leader), f"the double {leader} to end")
        poll(lambda: not process_running(child), f"the double's child {child} to end")
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert code == -signal.SIGKILL if signum == signal.SIGKILL else code == 128 + signum
    partial = [p for p in runs.iterdir() if p.name.endswith(".partial")]
    assert len(partial) == 1 and not [p for p in runs.iterdir() if p not in partial]
    if signum != signal.SIGKILL:
        note = json.loads((partial[0] / "INCOMPLETE.json").read_text())
        assert note["status"] == "cancelled"
        assert signal.Signals(signum).name in note["detail"]
        assert b"Traceback" not in build.stderr.read()  # type: ignore[union-attr]
