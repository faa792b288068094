"""Demos: every job run on the bundled example data, and ``trtsafe-lab demo``.

Each step is a module of this package (:data:`DEMO_STEPS`) exposing
``run_demo(out_dir: Path) -> list[Path]``; it writes only inside ``out_dir`` (the step's
sub-folder, named after the module) and returns the files it wrote. A step whose optional
dependencies are not installed is skipped, and the demo says which extra would enable it; a
step that fails is reported and the others still run. Library modules never import this package.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path

from trtsafe_lab._optional import MissingDependencyError, install_hint


@dataclass(frozen=True)
class DemoStep:
    """A demo module and the optional modules it needs (top-level import names)."""

    module: str
    needs: tuple[str, ...] = ()

    @property
    def folder(self) -> str:
        """The step's output sub-folder: its module's last name (``...demo.logs`` -> logs)."""
        return self.module.rsplit(".", 1)[-1]

    def missing(self) -> list[str]:
        """The modules in :attr:`needs` that are not installed (found without importing)."""
        return [m for m in self.needs if importlib.util.find_spec(m) is None]


# In the order they run. The notebook report needs a Jupyter kernel and nbconvert.
DEMO_STEPS: tuple[DemoStep, ...] = (
    DemoStep("trtsafe_lab.demo.logs"),
    DemoStep("trtsafe_lab.demo.trtexec"),
    DemoStep("trtsafe_lab.demo.profile"),
    DemoStep("trtsafe_lab.demo.runtime"),
    # the example project has C++, a shell script, CMakeLists.txt and CI YAML
    DemoStep("trtsafe_lab.demo.migrate",
             ("tree_sitter", "tree_sitter_cpp", "tree_sitter_bash", "tree_sitter_cmake", "yaml")),
    DemoStep("trtsafe_lab.demo.report",
             ("nbclient", "nbformat", "nbconvert", "ipykernel", "ipywidgets")),
)


@dataclass
class DemoResult:
    """What :func:`run_demo` did: files written, steps skipped (-> why) and failed (-> error)."""

    written: list[Path] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


def run_demo(out_dir: Path, steps: tuple[DemoStep, ...] = DEMO_STEPS) -> DemoResult:
    """Run every step whose dependencies are installed into its sub-folder of ``out_dir``."""
    result = DemoResult()
    for step in steps:
        missing = step.missing()
        if missing:
            result.skipped[step.folder] = (f"needs {', '.join(missing)}. "
                                           f"{install_hint(missing[0])}")
            print(f"[demo] skipped {step.folder}: {result.skipped[step.folder]}")
            continue
        step_dir = out_dir / step.folder
        step_dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        try:
            files = importlib.import_module(step.module).run_demo(step_dir)
        except BrokenPipeError:  # our reader went away: not the step's fault
            raise
        except MissingDependencyError as err:
            result.skipped[step.folder] = str(err)
            print(f"[demo] skipped {step.folder}: {err}")
            continue
        except Exception as err:  # reported, counted, and the demo exits 1
            result.failed[step.folder] = f"{type(err).__name__}: {err}"
            print(f"[demo] FAILED {step.folder}: {result.failed[step.folder]}")
            continue
        print(f"[demo] {step.folder}: {len(files)} files in {time.perf_counter() - started:.1f}s")
        for path in files:
            print(f"         {path}")
        result.written.extend(files)
    return result


def _cli(args: argparse.Namespace) -> int:
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = run_demo(out_dir)
    print(f"[demo] wrote {len(result.written)} files under {out_dir.resolve()}")
    if result.skipped:
        print(f"[demo] skipped {len(result.skipped)} step(s): {', '.join(result.skipped)} "
              "(see above for the extra that enables each)")
    if result.failed:
        print(f"[demo] {len(result.failed)} step(s) failed: {', '.join(result.failed)}")
        return 1
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="run the main jobs on the bundled example data and write the outputs",
        description="Run every job on the bundled example data. Steps whose optional "
        "dependencies are missing are skipped with the extra that enables them; exit 1 if a "
        "step failed.")
    parser.add_argument("--out", default="out/demo", metavar="DIR",
                        help="folder the demo writes into, one sub-folder per step")
    parser.set_defaults(func=_cli)
