"""The real ``nvinfer2::safe`` calls each step of the safety runner stands for.

The runner (:class:`~trtsafe_lab.runtime.lifecycle.SafetyRunner`) is a model; the safety runtime
is NVIDIA's C++ API, as its own applications call it: ``samples/trtSafeExec/trtSafeExec.cpp``
(trtexec_safe), ``samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp`` and, in 11.1,
``samples/common/safeCommon.h`` (``setUpAuxStreamsOn``). Their calls, per function and in source
order, are derived by :mod:`trtsafe_lab.runtime.safe_api_source` into
:mod:`trtsafe_lab.runtime.safe_api_calls` (a drift test re-derives them from
``../shared/reference/tensorrt-oss``). This module says which runner step each call belongs to
(:data:`STEPS_OF`, written here: that mapping is the model) and lays the calls out in the order a
sample runs them (:func:`real_call_sequence`: helpers inlined, a thread's function where it is
launched, a lambda's calls, such as the aux-stream deleter, at the end of the scope that owns it).

What the samples do, step by step (11.1 trtSafeExec):

- ``initialize``: ``createTRTGraph(graph, blob, size, recorder, trtManagedScratch, allocator)``
  with an ``ISafeRecorder`` per thread, ``clone`` per extra thread, ``setIOProfile``, scratch
  memory, the IO tensors (``getNbIOTensors`` / ``getIOTensorName`` / ``getIOTensorDescriptor`` /
  ``setIOTensorAddress``), ``setInputConsumedEvent``, and the aux streams as
  ``setUpAuxStreamsOn`` does it: ``getNbAuxStreams(n)``, ``n`` non-blocking
  ``cudaStreamCreateWithFlags``, ``setAuxStreams(streams, n)`` — before the first
  ``executeAsync``.
- ``prepare``: the warm-up ``executeAsync(stream)`` + ``sync()`` (and the CUDA-graph capture).
- ``run_stage``: ``executeAsync(stream)`` + ``sync()``.
- ``deinitialize_graphs``: the final ``sync()``, ``setScratchMemory(nullptr)``,
  ``destroyTRTGraph``.
- ``deinitialize_resources``: ``cudaStreamDestroy`` of the aux streams (the deleter returned by
  ``setUpAuxStreamsOn``) and the main stream, after the final ``sync()``.
- ``complete_context``: the samples have no caller-owned model-local resources; binding one
  would be ``setIOTensorAddress`` on a caller buffer.

Status and recorder: every real call returns an ``ErrorCode`` (``kSUCCESS`` ...); the samples'
``SAFE_API_CALL`` macro (``safeCommon.h``) logs a failure with its call text to the thread's
``ISafeRecorder`` (``SampleSafeRecorder``, ``safeErrorRecorder.h``; descriptions bounded by
``ISafeRecorder::kMAX_SAFE_DESC_LENGTH``) and stops. The runner's
:class:`~trtsafe_lab.runtime.status.Status` (category, bounded diagnostic, fatal flag) and its
``trace`` play those two parts.

Known difference: each sample thread destroys its own streams when it ends, before the main
thread calls ``destroyTRTGraph``; the runner destroys streams in ``deinitialize_resources``,
after ``deinitialize_graphs``. Both come after the final ``sync()``, which is what the API
requires. Pre-11.3 (10.16, 11.1) ``createTRTGraph`` has no companion ``.so`` argument; from 11.3
it takes ``companionSoPath`` as 4th argument (migration guide; no public 11.3 source).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from trtsafe_lab.runtime.safe_api_calls import SAFE_API_CALLS
from trtsafe_lab.runtime.safe_api_source import CALL_COLUMNS, HELPER, LAMBDA
from trtsafe_lab.runtime.states import CALLS

if TYPE_CHECKING:
    import pandas as pd

_INIT, _CONTEXT, _PREPARE, _RUN, _GRAPHS, _RESOURCES = CALLS

#: Real call -> the runner steps it may belong to (in lifecycle order).
STEPS_OF: dict[str, tuple[str, ...]] = {
    "nvinfer2::safe::createTRTGraph": (_INIT,),
    "nvinfer2::safe::getSafeMemAllocator": (_INIT, _RESOURCES),
    "nvinfer2::safe::getSafePluginRegistry": (_INIT,),
    "nvinfer2::safe::destroyTRTGraph": (_GRAPHS,),
    "ITRTGraph::clone": (_INIT,),
    "ITRTGraph::setIOProfile": (_INIT,),
    "ITRTGraph::getScratchMemorySize": (_INIT,),
    "ITRTGraph::setScratchMemory": (_INIT, _GRAPHS),  # an address, then nullptr at the end
    "ITRTGraph::getNbIOTensors": (_INIT,),
    "ITRTGraph::getIOTensorName": (_INIT,),
    "ITRTGraph::getIOTensorDescriptor": (_INIT,),
    "ITRTGraph::setIOTensorAddress": (_INIT, _CONTEXT),
    "ITRTGraph::setInputConsumedEvent": (_INIT,),
    "ITRTGraph::getInputConsumedEvent": (
        _INIT,
        _PREPARE,
        _RUN,
    ),  # a getter, used after executeAsync
    "ITRTGraph::getNbAuxStreams": (_INIT,),
    "ITRTGraph::setAuxStreams": (_INIT,),
    "cudaStreamCreateWithFlags": (_INIT,),
    "ITRTGraph::executeAsync": (_PREPARE, _RUN),
    "ITRTGraph::sync": (_PREPARE, _RUN, _GRAPHS),
    "cudaStreamDestroy": (_RESOURCES,),
}

SAMPLES = {
    "trtSafeExec": ("samples/trtSafeExec/trtSafeExec.cpp", "doInference"),
    "sampleSafeMNIST": ("samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp", "doInference"),
}
_MAX_INLINE = 16


def calls_table(version: str | None = None) -> pd.DataFrame:
    """The derived calls (columns :data:`~trtsafe_lab.runtime.safe_api_source.CALL_COLUMNS`),
    of one version (``"10.16"``, ``"11.1"``) or all."""
    import pandas as pd

    rows = [r for r in SAFE_API_CALLS if version is None or r[0] == version]
    return pd.DataFrame(rows, columns=list(CALL_COLUMNS))


Functions = dict[tuple[str, str], list[tuple[str, ...]]]  # (source, function) -> rows


def _by_function(version: str) -> Functions:
    out: Functions = {}
    for row in SAFE_API_CALLS:
        if row[0] == version:
            out.setdefault((row[1], row[3]), []).append(tuple(str(v) for v in row))
    return out


def _find(functions: Functions, source: str, name: str) -> tuple[str, str] | None:
    """Where helper ``name`` is defined: the calling file first, then the other sources."""
    if (source, name) in functions:
        return (source, name)
    return next((key for key in functions if key[1] == name), None)


def _inline(
    functions: Functions, key: tuple[str, str], depth: int
) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """(rows of ``key`` with helpers inlined, rows of its lambdas): a lambda a helper returns
    (``setUpAuxStreamsOn``'s stream deleter) runs when the caller's scope ends, so the caller
    puts those rows after its own."""
    source, name = key
    out: list[tuple[str, ...]] = []
    later: list[tuple[str, ...]] = []
    for row in functions.get(key, []):
        call = row[4]
        if not call.startswith(HELPER):
            out.append(row)
            continue
        found = _find(functions, source, call[len(HELPER) :])
        if found is not None and depth < _MAX_INLINE and found != key:
            body, lambdas = _inline(functions, found, depth + 1)
            out.extend(body)
            later.extend(lambdas)
    return out + later, functions.get((source, f"{name} {LAMBDA}"), [])


def real_call_sequence(sample: str = "trtSafeExec", version: str = "11.1") -> pd.DataFrame:
    """The API calls of one sample in the order it runs them (one thread; loops once, every
    branch taken), with the runner step(s) each stands for.

    Columns: ``order`` (from 0), ``call`` (``ITRTGraph::x`` / ``nvinfer2::safe::x`` /
    ``cudaStream...``), ``arguments`` (as written), ``function`` (where it is written;
    ``[lambda]``: inside a lambda, run at the end of the owning scope), ``source`` and ``line``
    (in ``../shared/reference/tensorrt-oss/<version>``) and ``runner_steps`` (the runner calls it
    belongs to, " / "-joined; see :data:`STEPS_OF`).
    """
    import pandas as pd

    if sample not in SAMPLES:
        raise ValueError(f"unknown sample {sample!r}; known: {sorted(SAMPLES)}")
    source, entry = SAMPLES[sample]
    functions = _by_function(version)
    if not functions:
        raise ValueError(f"no derived calls for version {version!r}; known: 10.16, 11.1")
    rows, lambdas = _inline(functions, (source, entry), 0)
    rows += lambdas
    return pd.DataFrame(
        [
            (i, r[4], r[5], r[3], r[1], int(r[2]), " / ".join(STEPS_OF.get(r[4], ())))
            for i, r in enumerate(rows)
        ],
        columns=["order", "call", "arguments", "function", "source", "line", "runner_steps"],
    )


def steps_in_order(calls: list[str]) -> list[str] | None:
    """A runner step per call such that the steps never go back in lifecycle order (the order
    the runner enforces), or None when no such choice exists. Unmapped calls raise KeyError."""
    rank = {step: i for i, step in enumerate(CALLS)}
    current = 0
    chosen: list[str] = []
    for call in calls:
        options = [rank[s] for s in STEPS_OF[call] if rank[s] >= current]
        if not options:
            return None
        current = min(options)
        chosen.append(CALLS[current])
    return chosen


@lru_cache(maxsize=32)
def real_calls_of(step: str, version: str = "11.1") -> tuple[str, ...]:
    """The real calls runner step ``step`` stands for, in the order the samples first make them
    (trtSafeExec, then sampleSafeMNIST); short names (``createTRTGraph``)."""
    functions = _by_function(version)
    seen: dict[str, None] = {}
    for source, entry in SAMPLES.values():
        rows, lambdas = _inline(functions, (source, entry), 0)
        for row in rows + lambdas:
            if step in STEPS_OF.get(row[4], ()):
                seen.setdefault(row[4].rsplit("::", 1)[-1], None)
    return tuple(seen)


def runner_steps_table(version: str = "11.1") -> pd.DataFrame:
    """One row per runner call (lifecycle order): ``step`` and ``real_calls`` (", "-joined; empty
    for ``complete_context``, which the samples never need)."""
    import pandas as pd

    return pd.DataFrame(
        [(step, ", ".join(real_calls_of(step, version))) for step in CALLS],
        columns=["step", "real_calls"],
    )
