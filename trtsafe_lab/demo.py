"""``trtsafe-lab demo``: run the main jobs on the bundled example data and write the outputs.

Each job that has a demo lists its module in :data:`DEMO_STEPS`; the module exposes
``run_demo(out_dir: Path) -> list[Path]``, writes only inside ``out_dir`` and returns the files
it wrote. The demo stops at the first failing step and says which one failed.
"""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

# Modules with a ``run_demo`` step, in the order they run.
DEMO_STEPS: tuple[str, ...] = (
    "trtsafe_lab.logs.failures_demo",
    "trtsafe_lab.trtexec.builds_demo",
    "trtsafe_lab.profile.profile_demo",
    "trtsafe_lab.runtime.lifecycle_demo",
    "trtsafe_lab.migrate.demo",
    "trtsafe_lab.report_demo",
)


def job_folder(module_name: str) -> str:
    """The output sub-folder of a step: its job package (``trtsafe_lab.logs.x`` -> ``logs``)."""
    parts = module_name.split(".")
    return parts[1] if len(parts) > 2 else parts[-1]


def run_demo(out_dir: Path, steps: tuple[str, ...] = DEMO_STEPS) -> list[Path]:
    """Run every demo step into its job's sub-folder of ``out_dir``; return all files written."""
    written: list[Path] = []
    for module_name in steps:
        step_dir = out_dir / job_folder(module_name)
        step_dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        files = importlib.import_module(module_name).run_demo(step_dir)
        print(f"[demo] {module_name}: {len(files)} files in {time.perf_counter() - started:.1f}s")
        for path in files:
            print(f"         {path}")
        written.extend(files)
    return written


def _cli(args: argparse.Namespace) -> int:
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = run_demo(out_dir)
    print(f"[demo] wrote {len(written)} files under {out_dir.resolve()}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="run the main jobs on the bundled example data and write the outputs"
    )
    parser.add_argument("--out", default="out/demo", help="output folder (default: out/demo)")
    parser.set_defaults(func=_cli)
