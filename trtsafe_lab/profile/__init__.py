"""Aux-stream versus single-stream profiling: executors, timing harness, loaders, statistics.

Importing this package imports neither cuda-python, TensorRT nor matplotlib; the modules that
need them import them lazily.
"""
