"""A wheel that works: built from the project, installed (not editable) in a fresh venv, then
``trtsafe-lab demo`` and ``trtsafe-lab report`` run there.

Offline by construction: the wheel is built with ``--no-build-isolation --no-index`` (setuptools
from the test environment) and installed with ``--no-index --no-deps``. The fresh venv borrows
the third-party packages from the test's own environment through a ``.pth`` file that adds
folders to ``sys.path`` (``.pth`` files inside them are not run, so the checkout's editable
install stays invisible there): first only the core dependencies and everything they need
(what ``pip install .`` gives), then the whole test environment (the extras).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from trtsafe_lab.demo.profile import example_runs

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "trtsafe_lab", "notebooks")
# The core dependencies (no extras), as the installed trtsafe-lab declares them.
CORE = tuple(Requirement(spec).name for spec in metadata.requires("trtsafe-lab") or []
             if Requirement(spec).marker is None)

pytestmark = pytest.mark.slow


def dependency_closure(names: tuple[str, ...]) -> set[str]:
    """Distributions ``names`` need, transitively (extras and unmet markers left out)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        for spec in metadata.requires(name) or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def core_only_folder(dest: Path) -> Path:
    """A folder of links to the installed core dependencies only (no onnx, no Jupyter...)."""
    dest.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for name in dependency_closure(CORE):
        dist = metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or []}
        for top in tops:
            source = site / top
            if source.exists() and not (dest / top).exists() and top != "..":
                (dest / top).symlink_to(source)
    return dest


def run(argv: list[str | Path], cwd: Path, env: dict[str, str], timeout: int = 600
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, src / name)
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "--no-index", "-w", work / "dist", src], work, dict(os.environ))
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (work / "dist").glob("trtsafe_lab-*.whl")
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    done = run([python, "-m", "pip", "install", "--no-index", "--no-deps", "-q", wheel], work,
               dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    purelib = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  work, dict(os.environ)).stdout.strip()
    return {"work": work, "wheel": wheel, "python": python, "bin": env_dir / "bin", "pth":
            Path(purelib) / "_borrowed_dependencies.pth", "core": core_only_folder(work / "core")}


def fresh_env(installed: dict[str, Path], deps: list[str]) -> dict[str, str]:
    installed["pth"].write_text("".join(f"{d}\n" for d in deps))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TRTSAFE"))}
    env.update(PATH=f"{installed['bin']}{os.pathsep}{env['PATH']}", MPLBACKEND="Agg")
    return env


def test_the_wheel_carries_notebooks_and_examples(installed: dict[str, Path]) -> None:
    env = fresh_env(installed, [str(installed["core"])])
    code = ("import trtsafe_lab, trtsafe_lab.report as r, trtsafe_lab.examples as e;"
            "print(trtsafe_lab.__file__); print(r.notebooks_dir()); print(e.example_path('logs'))")
    out = run([installed["python"], "-c", code], installed["work"], env)
    assert out.returncode == 0, out.stderr
    package, notebooks, logs = (Path(line) for line in out.stdout.split())
    venv_dir = installed["bin"].parent
    assert venv_dir in package.parents, "imported the checkout, not the installed wheel"
    assert notebooks == package.parent / "notebooks" and len(list(notebooks.glob("*.ipynb"))) == 4
    assert venv_dir in logs.parents


def test_the_wheel_carries_the_data_the_package_reads_and_no_test_data(
        installed: dict[str, Path]) -> None:
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    # read by the package: explanations (logs/explanations.py), flag tables (trtexec/flag_table.py)
    assert "trtsafe_lab/logs/explanations.json" in names
    assert "trtsafe_lab/trtexec/_tables/trtexec-11.4.json" in names
    # test data stays in tests/ (the message-template table, derive scripts, fixtures)
    assert not [n for n in names if n.endswith(".tsv") or "/tests/" in n or "_messages" in n]


def test_core_install_runs_what_it_can_and_names_the_extras(installed: dict[str, Path]) -> None:
    env = fresh_env(installed, [str(installed["core"])])
    out = run(["trtsafe-lab", "demo", "--out", "demo-core"], installed["work"], env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    for step in ("logs", "trtexec", "profile", "runtime"):
        assert f"[demo] {step}: " in out.stdout
    assert "[demo] skipped migrate: needs tree_sitter" in out.stdout
    assert "pip install 'trtsafe-lab[migrate]'" in out.stdout
    assert "[demo] skipped report: needs nbclient" in out.stdout
    assert "pip install 'trtsafe-lab[notebook]'" in out.stdout
    assert "without ONNX op types" in out.stdout and "trtsafe-lab[onnx]" in out.stdout
    demo = installed["work"] / "demo-core"
    assert sorted(p.name for p in demo.iterdir()) == ["logs", "profile", "runtime", "trtexec"]
    assert (demo / "logs" / "summary.png").stat().st_size > 0


def test_full_install_runs_demo_and_report(installed: dict[str, Path]) -> None:
    env = fresh_env(installed, [sysconfig.get_paths()["purelib"]])
    # data files the notebook extra installs under <venv>/share/jupyter (nbconvert templates)
    env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")
    out = run(["trtsafe-lab", "demo", "--out", "demo-full"], installed["work"], env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "skipped" not in out.stdout and "FAILED" not in out.stdout
    reports = {p.name for p in (installed["work"] / "demo-full" / "report").glob("*.html")}
    profiles = {f"profile-{workload}.html" for workload in example_runs()}  # one per workload
    assert reports == {"failure-triage-examples.html", "safety-runtime-tour.html", *profiles}
    log = installed["work"] / "given.log"
    log.write_text("[E] Error[10]: Could not find any implementation for node conv1.\n")
    out = run(["trtsafe-lab", "report", log, "-o", "triage.html"], installed["work"], env)
    assert out.returncode == 0, out.stdout + out.stderr
    html = (installed["work"] / "triage.html").read_text()
    assert "conv1" in html and "<script src=" not in html
