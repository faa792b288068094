"""Helpers for the build tests: install the trtexec TEST DOUBLE, build real ELF .so files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

DOUBLE_SOURCE = Path(__file__).parent / "doubles" / "trtexec_double.py"


def install_double(folder: Path, name: str = "trtexec") -> Path:
    """Write the TEST DOUBLE as an executable ``folder/name`` using this interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_text(f"#!{sys.executable}\n" + DOUBLE_SOURCE.read_text(encoding="utf-8"))
    target.chmod(0o755)
    return target


def build_shared_object(out: Path, symbol: str = "trtsafe_lab_test_symbol") -> Path:
    """Compile a real ELF shared object with the system ``cc -shared`` (host architecture)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError("no C compiler (cc/gcc) on PATH: the pair tests need one")
    source = out.with_suffix(".c")
    source.write_text(f"int {symbol}(int x) {{ return x + 1; }}\n")
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(out), str(source)], check=True)
    return out


def process_running(pid: int) -> bool:
    """True when ``pid`` exists and is not a zombie (a dead child not yet reaped by init)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def double_environment(
    tmp_path: Path, so: Path, case: Path, tool: str = "trtexec"
) -> dict[str, str]:
    """Install the TEST DOUBLE under ``tmp_path/'TEST DOUBLE bin'`` (a path with a space) and
    return the environment variables that put it first on PATH and make it replay ``case``."""
    folder = tmp_path / "TEST DOUBLE bin"
    install_double(folder, tool)
    return {
        "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}",
        "TRTEXEC_DOUBLE_CASE": str(case),
        "TRTEXEC_DOUBLE_SO": str(so),
    }


def group_members_running(pgid: int) -> list[int]:
    """PIDs of non-zombie processes in process group ``pgid`` (Linux /proc scan)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members
