"""Where a safe engine's companion ``.so`` is when no path is given (TensorRT 11.3+).

trtexec writes it at ``--saveEngineSo=<file>`` and reads it from ``--loadEngineSo=<file>``; without
the flag the default is the full engine path plus ``.so`` (``a.engine`` -> ``a.engine.so``;
reference/tensorrt-facts.md, from NVIDIA's 10.x -> 11.x safety migration guide). The one place
that spells the default: the trtexec rules (expected artifacts, the commands they compose) and
the engine + ``.so`` pairs (artifacts) both use it.
"""

from __future__ import annotations

import os
from pathlib import Path

COMPANION_SO_SUFFIX = ".so"


def companion_so_for(engine: str | os.PathLike[str],
                     explicit: str | os.PathLike[str] | None = None) -> Path:
    """The companion ``.so`` of ``engine``: ``explicit`` when given (a flag's value), else the
    engine path plus ``.so``."""
    if explicit:
        return Path(explicit)
    return Path(f"{os.fspath(engine)}{COMPANION_SO_SUFFIX}")
