"""`make test` on a fresh machine: .ci/ensure-chromium finds chromium, or installs it as root
with apt-get (the branch .ci/run always used; not exercised here: it would change this machine),
or says exactly what is missing and how to get it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "ensure-chromium"


def run_copy(tmp_path: Path, default: Path, env: dict[str, str]
             ) -> subprocess.CompletedProcess[str]:
    """Run a copy of the script whose default chromium path is ``default``."""
    script = tmp_path / "ensure-chromium"
    script.write_text(SCRIPT.read_text().replace("/usr/bin/chromium", str(default)))
    script.chmod(0o755)
    return subprocess.run([str(script)], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def only_tools(tmp_path: Path, *names: str) -> str:
    """A PATH holding just ``names`` (no apt-get): the machine cannot install anything."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in names:
        found = shutil.which(name)
        assert found, name
        (folder / name).symlink_to(found)
    return str(folder)


def test_present_chromium_is_used(tmp_path: Path) -> None:
    browser = tmp_path / "chromium"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    done = run_copy(tmp_path, browser, {"PATH": os.environ["PATH"]})
    assert done.returncode == 0 and done.stderr == ""


def test_missing_chromium_without_a_way_to_install_says_how(tmp_path: Path) -> None:
    path = only_tools(tmp_path, "bash", "id", "cat")
    done = run_copy(tmp_path, tmp_path / "no-chromium", {"PATH": path})
    assert done.returncode == 1
    assert "sudo apt-get install -y chromium" in done.stderr
    assert "TRTSAFE_CHROMIUM=" in done.stderr and "make test-no-browser" in done.stderr


def test_a_wrong_trtsafe_chromium_is_refused_not_installed_over(tmp_path: Path) -> None:
    done = run_copy(tmp_path, tmp_path / "no-chromium",
                    {"PATH": os.environ["PATH"], "TRTSAFE_CHROMIUM": str(tmp_path / "nope")})
    assert done.returncode == 1 and "is not an executable file" in done.stderr
