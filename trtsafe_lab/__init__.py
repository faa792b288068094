"""trtsafe-lab: bring a network up on the TensorRT 11.x safety stack from a notebook.

Importing this package is cheap and side-effect free: it never imports tensorrt, cuda,
matplotlib or ipywidgets. Those are loaded lazily by the few modules that need them, through
:func:`trtsafe_lab._optional.require`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
