"""Metamorphic test of who prints TensorRT's messages: re-prefix them, read the same failures.

TensorRT's messages reach a log through many loggers (trtexec, the Python API old and new,
glog in Triton / Paddle, DeepStream's nvinfer, tensorRT_Pro, TensorRT-LLM, Python logging's
formats, ROS 2). Every train case of
``tests/data/logs`` (never a set-aside one) and every shared case whose ground truth names
layers is read again with each line that TensorRT's own logger printed (a tagged TensorRT or
trtexec prefix) printed by another real logger, same severity and message: the failure table
must blame the same layers with the same category and fatal flag. Loggers no train log has
shown yet are among them (spdlog, env_logger, logback, zap, journald: 35-81 cases differed
before the sixth round's rules read their prefixes).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_cases import named_cases, read_layers

from trtsafe_lab.logs.records import parse_prefix

LETTER = {"error": "E", "warning": "W", "info": "I", "verbose": "V", "internal_error": "F"}
WORD = {"error": "ERROR", "warning": "WARNING", "info": "INFO", "verbose": "VERBOSE",
        "internal_error": "INTERNAL_ERROR"}
# Python logging's level names (TensorRT's verbose and internal error mapped as apps map them)
_PY = {"error": "ERROR", "warning": "WARNING", "info": "INFO", "verbose": "DEBUG",
       "internal_error": "CRITICAL"}
_LOWER = {"error": "error", "warning": "warning", "info": "info", "verbose": "debug",
          "internal_error": "critical"}
_UPPER = {"error": "ERROR", "warning": "WARN", "info": "INFO", "verbose": "DEBUG",
          "internal_error": "ERROR"}
# (severity, message) -> the line as each logger prints it (forms from the corpora, and the
# default formats of common logging libraries)
LOGGERS: dict[str, Callable[[str, str], str]] = {
    "python-legacy": lambda s, m: f"[TensorRT] {WORD[s]}: {m}",
    "trtexec": lambda s, m: f"[12/01/2026-10:00:00] [{LETTER[s]}] [TRT] {m}",
    "python": lambda s, m: f"[12/01/2026-10:00:00] [TRT] [{LETTER[s]}] {m}",
    "glog": lambda s, m: (
        f"{ {'verbose': 'I', 'internal_error': 'E'}.get(s, LETTER[s]) }0518 01:21:26.791899"
        f" 1 logging.cc:43] {m}"
    ),
    "deepstream": lambda s, m: f"{WORD[s]}: [TRT]: {m}",
    "tensorrt-pro": lambda s, m: (
        f"[2022-12-08 17:36:09][{ {'internal_error': 'fatal'}.get(s, s) }]"
        f"[trt_builder.cpp:30]:NVInfer: {m}"
    ),
    "tensorrt-llm": lambda s, m: f"[TensorRT-LLM][{WORD[s]}] {m}",
    # TF-TRT's Logger: TensorFlow's logging, then its name (trt_logger.cc: kINFO -> VLOG(2),
    # kINTERNAL_ERROR -> LOG(FATAL); n654)
    "tf-trt": lambda s, m: (
        f"2020-04-13 17:11:35.407792: { {'verbose': 'I', 'internal_error': 'F'}.get(s, LETTER[s]) }"
        f" tensorflow/compiler/tf2tensorrt/utils/trt_logger.cc:41] DefaultLogger {m}"
    ),
    # Python logging's formats around TensorRT's logger callback (an app's own logger class
    # forwarding each message): the logging cookbook's "%(asctime)s - %(name)s -
    # %(levelname)s - %(message)s", loguru's default, mmcv's (n360's application lines), pytest's
    # captured-log "%(levelname)-8s %(name)s:%(filename)s:%(lineno)d %(message)s"
    "py-logging": lambda s, m: f"2022-05-10 18:38:31,123 - trt_builder - {_PY[s]} - {m}",
    "loguru": lambda s, m: f"2024-01-01 10:00:00.123 | {_PY[s]:<8} | app.build:run:42 - {m}",
    "mmcv": lambda s, m: f"2022-05-10:18:38:31,root {_PY[s]:<8} [utils.py:43] {m}",
    "pytest-log": lambda s, m: f"{_PY[s]:<8} trt.builder:builder.py:42 {m}",
    # ROS 2's rclcpp/rclpy logger ("[LEVEL] [epoch] [node]: "), GitHub Actions' timestamp
    "ros2": lambda s, m: f"[{_PY[s]}] [1700000000.123456789] [trt_node]: {m}",
    # Triton 24.x quotes each glog message ('logging.cc:43] "..."')
    "triton-quoted": lambda s, m: (
        f"{ {'verbose': 'I', 'internal_error': 'E'}.get(s, LETTER[s]) }1010 10:00:00.123456 1"
        f' logging.cc:43] "{m}"'
    ),
    "github-actions": lambda s, m: (
        f"2024-01-01T10:00:00.1234567Z [12/01/2026-10:00:00] [{LETTER[s]}] [TRT] {m}"
    ),
    # logging libraries' default formats an app may route TensorRT's ILogger callback through:
    # spdlog (C++: "[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v"), Rust's env_logger, logback / log4j
    # ("%d [%thread] %-5level %logger{36} - %msg"), Go's zap console encoder (tab-separated,
    # with its caller), journald's short output of a service printing "[E] ..." itself
    "spdlog": lambda s, m: f"[2024-01-01 10:00:00.123] [trt] [{_LOWER[s]}] {m}",
    "env_logger": lambda s, m: f"[2024-01-01T10:00:00Z {_UPPER[s]:<5} app::trt] {m}",
    "logback": lambda s, m: f"2024-01-01 10:00:00,123 [main] {_UPPER[s]:<5} c.e.TrtBuilder - {m}",
    "zap": lambda s, m: f"2024-01-01T10:00:00.123Z\t{_UPPER[s]}\ttrt/builder.go:42\t{m}",
    "journald": lambda s, m: f"Jan 01 10:00:00 jetson infer[1234]: [{LETTER[s]}] {m}",
}


@pytest.mark.parametrize("logger", sorted(LOGGERS))
def test_tensorrt_lines_read_alike_from_every_logger(corpus_dir: Path, logger: str) -> None:
    printed = LOGGERS[logger]
    failures = []
    changed = 0
    for case_id, path, _ in named_cases(corpus_dir):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        lines = []
        for line in text.split("\n"):
            prefix, message = parse_prefix(line)
            if (prefix.tagged and prefix.severity in LETTER and message.strip()
                    and prefix.source in ("tensorrt", "trtexec")):
                number = f"{prefix.error_number}: " if prefix.error_number is not None else ""
                line = printed(prefix.severity, number + message)
            lines.append(line)
        moved = "\n".join(lines)
        if moved == text:
            continue
        changed += 1
        before, after = read_layers(text), read_layers(moved)
        if after != before:
            failures.append(f"{case_id}: {sorted(before.items())[:2]} -> "
                            f"{sorted(after.items())[:2]}")
    assert changed >= 100, changed
    assert not failures, f"{logger}: {len(failures)} cases\n" + "\n".join(failures)
