"""Build, parse and runtime logs -> layer-level failure tables (no TensorRT needed).

>>> from trtsafe_lab.logs import analyze_log
>>> result = analyze_log("[E] Error[10]: Error Code 10: Internal Error (Could not find any "
...                      "implementation for node conv1.)", text=True)
>>> list(result.failures["layer"])
['conv1']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trtsafe_lab.logs.analysis import LogAnalysis, analyze_log
    from trtsafe_lab.logs.parser import LogParser
    from trtsafe_lab.logs.source import LogReadError

__all__ = ["LogAnalysis", "LogParser", "LogReadError", "analyze_log"]
# Loaded on first use: `trtsafe-lab failures` and the streaming scan need neither pandas
# (analysis, tables) nor each other's modules at start-up.
_LAZY = {
    "LogAnalysis": "trtsafe_lab.logs.analysis",
    "analyze_log": "trtsafe_lab.logs.analysis",
    "LogParser": "trtsafe_lab.logs.parser",
    "LogReadError": "trtsafe_lab.logs.source",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'trtsafe_lab.logs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
