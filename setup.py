"""Build hook: ship the top-level ``notebooks/`` inside the wheel as ``trtsafe_lab/notebooks/``.

The notebooks stay at the top level of the repository (where people open them); a wheel carries
a copy so ``trtsafe-lab report`` and ``trtsafe-lab demo`` work from a normal (non-editable)
install. Everything else about the build is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"


class BuildPyWithNotebooks(build_py):
    """build_py, then copy notebooks/*.ipynb into the built package (not in editable mode:
    an editable install reads the checkout's notebooks/ directly)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
        if not notebooks:
            raise FileNotFoundError(f"no notebooks in {NOTEBOOKS}: the wheel would ship none")
        target = Path(self.build_lib) / "trtsafe_lab" / "notebooks"
        target.mkdir(parents=True, exist_ok=True)
        for notebook in notebooks:
            shutil.copyfile(notebook, target / notebook.name)


setup(cmdclass={"build_py": BuildPyWithNotebooks})
