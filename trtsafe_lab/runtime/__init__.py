"""The safety-runtime lifecycle runner: the Edge-LLM safety runtime's rules, enforced on x86.

Core modules need only pandas: :mod:`.status` (status values, :func:`raise_for_status`),
:mod:`.spec` (the init spec and its validation), :mod:`.states` (states and legal calls),
:mod:`.lifecycle` (:class:`SafetyRunner`), :mod:`.trace`, :mod:`.executors` (the executor protocol
and the in-process CPU test double), :mod:`.backends` (streams/buffers with a handle ledger) and
:mod:`.pipeline` (a prefill/decode example). GPU pieces import cuda-python lazily
(:mod:`.cuda_backend`, :mod:`.cuda_faults`); the diagram is in :mod:`.view` (matplotlib).
"""

from trtsafe_lab.runtime.backends import HandleLedger, InProcessBackend
from trtsafe_lab.runtime.executors import (
    Buffer,
    DeviceError,
    ExecutorInfo,
    InProcessExecutor,
    StageExecutor,
    TensorDecl,
)
from trtsafe_lab.runtime.lifecycle import SafetyRunner
from trtsafe_lab.runtime.spec import AliasGroup, InitSpec, StagePlan
from trtsafe_lab.runtime.states import LifecyclePhase, State, legal_calls
from trtsafe_lab.runtime.status import Category, SafetyRuntimeError, Status, raise_for_status

__all__ = [
    "AliasGroup",
    "Buffer",
    "Category",
    "DeviceError",
    "ExecutorInfo",
    "HandleLedger",
    "InProcessBackend",
    "InProcessExecutor",
    "InitSpec",
    "LifecyclePhase",
    "SafetyRunner",
    "SafetyRuntimeError",
    "StageExecutor",
    "StagePlan",
    "State",
    "Status",
    "TensorDecl",
    "legal_calls",
    "raise_for_status",
]
