"""Shared fixtures: the real-TensorRT corpus, hardware markers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def corpus_root() -> Path:
    """The shared corpus of real TensorRT logs and exports (TRTSAFE_CORPUS overrides)."""
    return Path(os.environ.get("TRTSAFE_CORPUS", REPO_ROOT.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    root = corpus_root()
    if not (root / "README.md").is_file():
        # Not a skip: CI always has ../shared beside the clone, so a missing corpus is a setup bug.
        pytest.fail(f"corpus not found at {root}; set TRTSAFE_CORPUS to ../shared/corpus")
    return root


def _gpu_present() -> bool:
    try:
        from cuda.bindings import runtime  # type: ignore[import-not-found]
    except ImportError:
        return False
    err, count = runtime.cudaGetDeviceCount()
    return int(err) == 0 and count > 0


def _tensorrt_present() -> bool:
    try:
        import tensorrt  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    needs_gpu = any("gpu" in item.keywords for item in items)
    needs_trt = any("trt" in item.keywords for item in items)
    no_gpu = needs_gpu and not _gpu_present()
    no_trt = needs_trt and not _tensorrt_present()
    for item in items:
        if no_gpu and "gpu" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="no NVIDIA GPU with cuda-python here"))
        if no_trt and "trt" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="tensorrt is not installed here"))
