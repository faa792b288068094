"""Bundled example data (logs, profile runs, a 10.x-era project) and the one way to find it.

The data ships inside the package (``pyproject.toml`` package-data), so it is found through
:mod:`importlib.resources` in an editable checkout and in an installed wheel alike.

>>> example_path("logs").is_dir()
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def example_path(*parts: str) -> Path:
    """The bundled example file or folder ``examples/<parts...>`` as a filesystem path.

    ``example_path("logs")``, ``example_path("profile", "runs")``,
    ``example_path("migrate", "lidar_app_10x")``. Raises FileNotFoundError naming the path when it
    is not there (an installation without the package data).
    """
    path = Path(str(resources.files(__name__).joinpath(*parts)))
    if not path.exists():
        raise FileNotFoundError(
            f"bundled example {'/'.join(parts)!r} not found at {path}: this trtsafe-lab "
            "installation lacks its package data; reinstall it (pip install trtsafe-lab)")
    return path
