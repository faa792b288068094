"""One helper for optional dependencies.

Optional packages (tensorrt, cuda-python, onnx, ipywidgets, matplotlib views, tree-sitter) are
imported only when a feature needs them. A missing one raises :class:`MissingDependencyError`,
an ``ImportError`` that names the extra to install and is chained to the original error. Nothing
is ever installed at run time and nothing silently stands in for the missing package.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# module to import -> (pip extra that provides it, what the user should know)
_EXTRAS: dict[str, tuple[str, str]] = {
    "tensorrt": (
        "trt",
        "TensorRT's full builder is not on PyPI (the 'tensorrt' wheel there downloads the "
        "libraries from NVIDIA's index at install time); DriveOS users get it from the DriveOS "
        "SDK. Analysis of recorded logs and run directories does not need it.",
    ),
    "cuda": ("gpu", "It needs an NVIDIA GPU and driver."),
    "cuda.bindings": ("gpu", "It needs an NVIDIA GPU and driver."),
    "cupti": ("cupti", "Kernel timelines need CUPTI (cupti-python) and an NVIDIA GPU."),
    "onnx": ("onnx", ""),
    "ipywidgets": ("notebook", ""),
    "ipykernel": ("notebook", "Reports run the notebooks in a Jupyter kernel."),
    "nbclient": ("notebook", ""),
    "nbformat": ("notebook", ""),
    "nbconvert": ("notebook", ""),
    "matplotlib": ("", "matplotlib is a core dependency; reinstall trtsafe-lab."),
    "tree_sitter": ("migrate", ""),
    "tree_sitter_cpp": ("migrate", ""),
    "tree_sitter_cuda": ("migrate", ""),
    "tree_sitter_bash": ("migrate", ""),
    "tree_sitter_cmake": ("migrate", ""),
    "yaml": ("migrate", "The migration checker reads CI YAML with PyYAML."),
}


class MissingDependencyError(ImportError):
    """An optional dependency needed by the requested feature is not installed."""


def install_hint(module: str) -> str:
    """Return the sentence that tells a user how to get ``module``."""
    root = module if module in _EXTRAS else module.split(".")[0]
    extra, note = _EXTRAS.get(root, ("", ""))
    how = (
        f"pip install 'trtsafe-lab[{extra}]'" if extra else f"pip install {root.replace('_', '-')}"
    )
    return f"Install it with: {how}." + (f" {note}" if note else "")


def require(module: str, *, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``feature`` and the extra.

    >>> require("json", feature="reading JSON").dumps([])
    '[]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise MissingDependencyError(
            f"{feature} needs the Python package '{module}', which could not be imported "
            f"({err}). {install_hint(module)}"
        ) from err


def available(module: str) -> bool:
    """True when ``module`` can be imported (imports it; use only where that cost is fine)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
