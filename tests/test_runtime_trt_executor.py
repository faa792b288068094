"""The TensorRT stage executor of the safety runner, against a recording TEST DOUBLE of the
``tensorrt`` runtime names -- NOT TensorRT. It checks the wiring (which names are called, with
what, in which order) and the error mapping; nothing about TensorRT's behaviour."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar

import pytest

from trtsafe_lab.runtime.executors import Buffer, DeviceError
from trtsafe_lab.runtime.status import Category


class TensorIOMode(enum.Enum):
    NONE = 0
    INPUT = 1
    OUTPUT = 2


class _Context:
    def __init__(self, calls: list[tuple[Any, ...]], fail_enqueue: bool) -> None:
        self.calls = calls
        self.fail_enqueue = fail_enqueue

    def set_tensor_address(self, name: str, address: int) -> bool:
        self.calls.append(("set_tensor_address", name, address))
        return True

    def set_aux_streams(self, streams: list[int]) -> None:
        self.calls.append(("set_aux_streams", tuple(streams)))

    def set_optimization_profile_async(self, profile: int, stream: int) -> bool:
        self.calls.append(("set_optimization_profile_async", profile, stream))
        return True

    def execute_async_v3(self, stream: int) -> bool:  # pyCore.cpp 11.1 (IExecutionContext)
        self.calls.append(("execute_async_v3", stream))
        return not self.fail_enqueue


class _Engine:
    num_io_tensors = 2
    num_optimization_profiles = 2
    num_aux_streams = 2
    device_memory_size_v2 = 4096
    _io: ClassVar[dict[str, tuple[Any, ...]]] = {"x": ((1, 3, 8, 8), "HALF", TensorIOMode.INPUT),
                                                 "y": ((1, 10), "FLOAT", TensorIOMode.OUTPUT)}

    def __init__(self, calls: list[tuple[Any, ...]], fail_enqueue: bool) -> None:
        self.calls, self.fail_enqueue = calls, fail_enqueue

    def get_tensor_name(self, i: int) -> str:
        return list(self._io)[i]

    def get_tensor_shape(self, name: str) -> tuple[int, ...]:
        return self._io[name][0]

    def get_tensor_dtype(self, name: str) -> SimpleNamespace:
        return SimpleNamespace(name=self._io[name][1])

    def get_tensor_mode(self, name: str) -> TensorIOMode:
        return self._io[name][2]

    def create_execution_context(self) -> _Context:
        return _Context(self.calls, self.fail_enqueue)


def _double(calls: list[tuple[Any, ...]], *, fail_enqueue: bool = False,
            corrupt: bool = False) -> ModuleType:
    module = ModuleType("tensorrt")

    class Runtime:
        def __init__(self, logger: object) -> None:
            pass

        def deserialize_cuda_engine(self, data: bytes) -> _Engine | None:
            calls.append(("deserialize_cuda_engine", len(data)))
            return None if corrupt else _Engine(calls, fail_enqueue)

    module.Runtime = Runtime  # type: ignore[attr-defined]
    module.Logger = lambda: object()  # type: ignore[attr-defined]
    module.TensorIOMode = TensorIOMode  # type: ignore[attr-defined]
    return module


@pytest.fixture
def engine_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.engine"
    path.write_bytes(b"\x00" * 64)
    return path


def _executor(monkeypatch: pytest.MonkeyPatch, engine_file: Path, calls: list[tuple[Any, ...]],
              **kw: bool) -> Any:
    monkeypatch.setitem(sys.modules, "tensorrt", _double(calls, **kw))
    from trtsafe_lab.runtime.trt_executor import TensorRTStageExecutor

    return TensorRTStageExecutor(engine_file)


def test_query_reports_io_roles_sizes_profiles_and_aux_streams(
        monkeypatch: pytest.MonkeyPatch, engine_file: Path) -> None:
    info = _executor(monkeypatch, engine_file, []).query()
    assert [(t.name, t.nbytes, t.role) for t in info.tensors] == [
        ("x", 1 * 3 * 8 * 8 * 2, "input"), ("y", 10 * 4, "output")]
    assert (info.num_profiles, info.num_aux_streams, info.device_memory_bytes) == (2, 2, 4096)
    assert info.on_gpu and "GPU" in info.kind


def test_bind_then_execute_switches_profile_only_when_it_changes(
        monkeypatch: pytest.MonkeyPatch, engine_file: Path) -> None:
    calls: list[tuple[Any, ...]] = []
    executor = _executor(monkeypatch, engine_file, calls)
    executor.bind({"x": Buffer(0x1000, 384), "y": Buffer(0x2000, 40)}, [11, 12])
    executor.execute(("prefill", 0), 0, 7)
    executor.execute(("decode", 0), 1, 7)
    executor.execute(("decode", 0), 1, 7)
    assert calls[1:] == [
        ("set_tensor_address", "x", 0x1000), ("set_tensor_address", "y", 0x2000),
        ("set_aux_streams", (11, 12)),
        ("execute_async_v3", 7),
        ("set_optimization_profile_async", 1, 7), ("execute_async_v3", 7),
        ("execute_async_v3", 7),
    ]
    executor.release()
    assert executor.context is None and executor.engine is None


def test_tensorrt_failures_are_fatal_tensorrt_errors(
        monkeypatch: pytest.MonkeyPatch, engine_file: Path) -> None:
    executor = _executor(monkeypatch, engine_file, [], fail_enqueue=True)
    with pytest.raises(DeviceError) as info:
        executor.execute(("prefill", 0), 0, 7)
    assert info.value.category is Category.TENSORRT_ERROR and "before bind" in str(info.value)
    executor.bind({}, [])
    with pytest.raises(DeviceError) as info:
        executor.execute(("prefill", 0), 0, 7)
    assert info.value.category is Category.TENSORRT_ERROR
    assert "enqueue returned False" in str(info.value)


def test_an_engine_that_does_not_deserialize_is_a_fatal_error_naming_the_file(
        monkeypatch: pytest.MonkeyPatch, engine_file: Path) -> None:
    with pytest.raises(DeviceError, match=r"model\.engine") as info:
        _executor(monkeypatch, engine_file, [], corrupt=True)
    assert info.value.category is Category.TENSORRT_ERROR
