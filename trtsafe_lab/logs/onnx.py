"""Optional ONNX enrichment of the failure table (needs the ``onnx`` extra).

Adds three columns to the failures table:

- ``onnx_op``: op_type of the ONNX node ``layer`` names ("" when no node matches);
- ``onnx_index``: that node's index in ``graph.node`` (<NA> when none);
- ``onnx_nodes``: the ONNX node names the layer covers: for a ``{ForeignNode[first...last]}``
  every node of ``graph.node`` from the one producing ``first`` to the one producing ``last``
  (ONNX requires ``graph.node`` to be topologically sorted, so this is the fused range in the
  model's order; TensorRT may fuse a subset of it when branches interleave), for a fused
  ``a + b + PWN(c)`` layer the members found in the model, else the node itself.

A name matches a node by the node's name, or by an output tensor name (legacy parser errors
print ``While parsing node number N [Op -> "out"]``), ignoring a ``[Constant]``-style suffix
TensorRT appends to tensor names inside ForeignNode ranges.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.names import foreign_range, members

_TYPE_SUFFIX = re.compile(r"\[[A-Za-z]+\]$")


class OnnxModelError(ValueError):
    """The ONNX model given for enrichment cannot be read; the message names the path."""


class OnnxIndex:
    """Node lookups over one ONNX graph."""

    def __init__(self, model: Any) -> None:
        self.nodes = list(model.graph.node)
        self.by_name: dict[str, int] = {}
        self.by_output: dict[str, int] = {}
        for index, node in enumerate(self.nodes):
            if node.name and node.name not in self.by_name:
                self.by_name[node.name] = index
            for output in node.output:
                self.by_output.setdefault(output, index)

    def find(self, name: str) -> int | None:
        """Index of the node ``name`` refers to (node name, else output tensor name)."""
        for candidate in (name, _TYPE_SUFFIX.sub("", name)):
            if candidate in self.by_name:
                return self.by_name[candidate]
            if candidate in self.by_output:
                return self.by_output[candidate]
        return None

    def covered(self, layer: str) -> tuple[str, ...]:
        """ONNX node names a (possibly fused) TensorRT layer covers, in graph order."""
        span = foreign_range(layer)
        if span is not None:
            first, last = self.find(span[0]), self.find(span[1])
            if first is not None and last is not None and first <= last:
                return tuple(self._name(i) for i in range(first, last + 1))
        found = [self.find(member) for member in members(layer) or (layer,)]
        return tuple(self._name(i) for i in sorted({i for i in found if i is not None}))

    def _name(self, index: int) -> str:
        node = self.nodes[index]
        return node.name or (node.output[0] if node.output else f"#{index}")


def load_model(model: Any) -> Any:
    """``model`` as an ``onnx.ModelProto`` (a path is loaded without external weights)."""
    onnx = require("onnx", feature="Adding ONNX op types to a failure table")
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        try:
            return onnx.load(path, load_external_data=False)
        except Exception as err:  # onnx raises OSError, protobuf DecodeError, ValueError...
            raise OnnxModelError(
                f"cannot load ONNX model '{path}': {err}. Pass the .onnx file the log was "
                "built from (or drop --onnx / onnx_model)."
            ) from err
    if not hasattr(model, "graph"):
        raise OnnxModelError(
            f"onnx_model must be a path or an onnx.ModelProto, not {type(model).__name__}"
        )
    return model


def enrich(failures: pd.DataFrame, model: Any) -> pd.DataFrame:
    """Return ``failures`` with onnx_op, onnx_index and onnx_nodes added (see module doc)."""
    index = OnnxIndex(load_model(model))
    ops: list[str] = []
    positions: list[int | None] = []
    covered: list[tuple[str, ...]] = []
    for layer in failures[C.LAYER] if len(failures) else []:
        found = index.find(layer) if layer else None
        ops.append(index.nodes[found].op_type if found is not None else "")
        positions.append(found)
        covered.append(index.covered(layer) if layer else ())
    out = failures.copy()
    out[C.ONNX_OP] = pd.Series(ops, index=failures.index, dtype=object)
    out[C.ONNX_INDEX] = pd.array(positions, dtype="Int64")
    out[C.ONNX_NODES] = pd.Series(covered, index=failures.index, dtype=object)
    return out
