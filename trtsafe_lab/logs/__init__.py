"""Build, parse and runtime logs -> layer-level failure tables (no TensorRT needed).

>>> from trtsafe_lab.logs import analyze_log
>>> result = analyze_log("[E] Error[10]: Error Code 10: Internal Error (Could not find any "
...                      "implementation for node conv1.)", text=True)
>>> list(result.failures["layer"])
['conv1']
"""

from trtsafe_lab.logs.analysis import LogAnalysis, analyze_log
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.source import LogReadError

__all__ = ["LogAnalysis", "LogParser", "LogReadError", "analyze_log"]
