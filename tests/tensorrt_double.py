"""A recording TEST DOUBLE of the ``tensorrt`` module -- NOT TensorRT.

Strict like pybind11: it knows only the classes, methods, properties, enum values and keyword
names that NVIDIA's bindings source defines (``tests/fixtures/tensorrt_api_11.1.json``, derived
by ``tests/tensorrt_api.py`` from pyCore.cpp/pyGraph.cpp of TensorRT 11.1), plus, for
``OnnxParser`` (its binding, pyOnnx.cpp, is not in the reference), the 11.4 names list. A name
the bindings lack raises ``AttributeError`` (module and object attributes, property writes);
a keyword the binding does not declare, or too many arguments, raises ``TypeError``; a real
name the double does not model raises ``NotImplementedError`` (so a test never passes on it).
The double's own classes are checked at import: each public member must exist in the bindings.

Behaviour modelled (enough to check the builder wiring, nothing about TensorRT): the builder
path records every config setting, and ``build_serialized_network`` drives the registered
progress monitor and logger with messages replayed from a real corpus log.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tensorrt_api
from conftest import corpus_root

API = tensorrt_api.load()
NAMES_FILE = corpus_root().parent / "reference" / "tensorrt-11.4-python-names.txt"
# Members of classes whose binding is not in the reference sources, from the 11.4 names list.
UNSOURCED = {"OnnxParser": {"parse_from_file", "parse", "num_errors", "get_error",
                            "clear_errors"}}


def _names_11_4() -> set[str]:
    return {ln.strip() for ln in NAMES_FILE.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}


def binding_members(cls: str) -> set[str]:
    if cls in UNSOURCED:
        return UNSOURCED[cls] & _names_11_4()
    return tensorrt_api.members(API, cls)


def writable_properties(cls: str) -> set[str]:
    if cls not in API["classes"]:
        return set()
    entry = API["classes"][cls]
    names = {n for n, p in entry["properties"].items() if p["writable"]}
    for base in entry["bases"]:
        names |= writable_properties(base)
    return names


def _type_error(cls: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                overloads: list[list[str]]) -> TypeError:
    shown = " | ".join(f"({', '.join(o)})" for o in overloads)
    return TypeError(f"{method}(): incompatible function arguments. The following argument "
                     f"types are supported (tensorrt.{cls}.{method}{shown}); invoked with "
                     f"{len(args)} positional and keywords {sorted(kwargs)} (TEST DOUBLE check "
                     "from the bindings source)")


def checked(method: Callable[..., Any]) -> Callable[..., Any]:
    """Check a modelled method's call against the binding's keyword names, like pybind11."""

    @functools.wraps(method)
    def call(self: BindingObject, *args: Any, **kwargs: Any) -> Any:
        cls = type(self).binding
        overloads = tensorrt_api.method_kwargs(API, cls, method.__name__) if (
            cls in API["classes"]) else None
        if overloads is not None and not any(
                len(args) <= len(o) and set(kwargs) <= set(o[len(args):]) for o in overloads):
            raise _type_error(cls, method.__name__, args, kwargs, overloads)
        return method(self, *args, **kwargs)

    return call


class BindingObject:
    """Base of every modelled tensorrt class; ``binding`` is the Python class name."""

    binding = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__ != __name__:
            return  # a user's subclass (e.g. a logger overriding log) may add what it likes
        allowed = binding_members(cls.binding)
        invented = [n for n in vars(cls) if not n.startswith("_") and n != "binding"
                    and n not in allowed]
        if invented:
            raise AssertionError(f"TEST DOUBLE {cls.binding} models names the bindings lack: "
                                 f"{invented}")

    def __getattr__(self, name: str) -> Any:
        cls = type(self).binding
        if not name.startswith("_") and name in binding_members(cls):
            raise NotImplementedError(f"TEST DOUBLE: tensorrt.{cls}.{name} exists in the "
                                      "bindings but is not modelled")
        raise AttributeError(f"'tensorrt.{cls}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self).binding
        if not name.startswith("_") and name not in writable_properties(cls):
            raise AttributeError(f"'tensorrt.{cls}' object has no writable attribute '{name}' "
                                 "(TEST DOUBLE check from the bindings source)")
        object.__setattr__(self, name, value)


def _enum(name: str) -> type[enum.IntEnum]:
    values = API["classes"][name]["values"]
    return enum.IntEnum(name, {v: i for i, v in enumerate(values)})  # type: ignore[return-value]


EngineCapability = _enum("EngineCapability")
ProfilingVerbosity = _enum("ProfilingVerbosity")
TensorIOMode = _enum("TensorIOMode")
Severity = _enum("Severity")  # ILogger.Severity (exported into ILogger's scope)


class ILogger(BindingObject):
    binding = "ILogger"
    INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = (Severity[n] for n in (
        "INTERNAL_ERROR", "ERROR", "WARNING", "INFO", "VERBOSE"))
    Severity = Severity

    def __init__(self) -> None:
        pass


class IProgressMonitor(BindingObject):
    binding = "IProgressMonitor"

    def __init__(self) -> None:
        pass


class HostMemory(bytes):
    """Stands in for IHostMemory (buffer protocol)."""


class ITimingCache(BindingObject):
    binding = "ITimingCache"

    def __init__(self, data: bytes) -> None:
        self._data = data

    @checked
    def serialize(self) -> HostMemory:
        return HostMemory(self._data + b"+entry")


class IBuilderConfig(BindingObject):
    binding = "IBuilderConfig"

    def __init__(self) -> None:
        object.__setattr__(self, "settings", {})

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        self.settings[name] = value

    @checked
    def create_timing_cache(self, serialized_timing_cache: bytes) -> ITimingCache:
        self.settings["timing_cache_bytes_in"] = bytes(serialized_timing_cache)
        return ITimingCache(bytes(serialized_timing_cache))

    @checked
    def set_timing_cache(self, cache: ITimingCache, ignore_mismatch: bool) -> bool:
        self.settings["timing_cache"] = cache
        return True


class INetworkDefinition(BindingObject):
    binding = "INetworkDefinition"


def make_double(log_lines: list[str], succeed: bool, steps: int = 4) -> Any:
    """A ``tensorrt`` stand-in replaying ``log_lines`` (severity from ``[E]``/``[W]``/...)."""
    state: dict[str, Any] = {}

    class Builder(BindingObject):
        binding = "Builder"

        def __init__(self, logger: ILogger) -> None:
            object.__setattr__(self, "_logger", logger)
            state["builder"] = self

        @checked
        def create_network(self, flags: int = 0) -> INetworkDefinition:
            return INetworkDefinition()

        @checked
        def create_builder_config(self) -> IBuilderConfig:
            state["config"] = IBuilderConfig()
            return state["config"]

        @checked
        def build_serialized_network(self, network: INetworkDefinition,
                                     config: IBuilderConfig) -> HostMemory | None:
            monitor = config.progress_monitor
            monitor.phase_start("Building", None, steps)
            for step in range(steps):
                if not monitor.step_complete("Building", step):
                    return None
            monitor.phase_finish("Building")
            for line in log_lines:
                letter = next((c for c in "FEWIV" if f"[{c}]" in line), "I")
                self._logger.log(Severity("FEWIV".index(letter)),
                                 line.split(f"[{letter}] ", 1)[-1])
            return HostMemory(b"double engine bytes") if succeed else None

    class OnnxParser(BindingObject):
        binding = "OnnxParser"

        def __init__(self, network: INetworkDefinition, logger: ILogger) -> None:
            pass

        def parse_from_file(self, model: str) -> bool:
            state["parsed"] = Path(model)
            return True

    return TensorrtModule(
        __version__="11.4.0.106-TEST-DOUBLE", Builder=Builder, OnnxParser=OnnxParser,
        ILogger=ILogger, IProgressMonitor=IProgressMonitor, EngineCapability=EngineCapability,
        ProfilingVerbosity=ProfilingVerbosity, TensorIOMode=TensorIOMode, state=state)


class TensorrtModule:
    """The module object: modelled names, NotImplementedError for real but unmodelled ones,
    AttributeError for names the bindings do not define."""

    def __init__(self, **attrs: Any) -> None:
        self.__dict__.update(attrs)

    def __getattr__(self, name: str) -> Any:
        if name in API["classes"] or name in API["functions"]:
            raise NotImplementedError(f"TEST DOUBLE: tensorrt.{name} exists in the bindings "
                                      "but is not modelled")
        raise AttributeError(f"module 'tensorrt' has no attribute '{name}'")
