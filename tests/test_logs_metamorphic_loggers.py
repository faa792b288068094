"""Metamorphic test: TensorRT's messages through loggers no train log has shown yet.

The same method as tests/test_logs_logger_prefixes.py (every line TensorRT's own logger printed
in a train or shared case whose truth names layers is printed by another real logger, same
severity and message; the failure table must blame the same layers with the same category and
fatal flag), for the default formats of widely used logging libraries an application may route
TensorRT's ILogger callback through: spdlog (C++), Rust's env_logger, log4j / logback (Java),
Go's zap (console encoder), journald's short output of a service, and a Python logger that
prints only "LEVEL message".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_cases import named_cases, read_layers
from test_logs_logger_prefixes import LETTER

from trtsafe_lab.logs.records import parse_prefix

_LOWER = {"error": "error", "warning": "warning", "info": "info", "verbose": "debug",
          "internal_error": "critical"}
_UPPER = {"error": "ERROR", "warning": "WARN", "info": "INFO", "verbose": "DEBUG",
          "internal_error": "ERROR"}
LOGGERS: dict[str, Callable[[str, str], str]] = {
    # spdlog's default pattern "[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v"
    "spdlog": lambda s, m: f"[2024-01-01 10:00:00.123] [trt] [{_LOWER[s]}] {m}",
    # env_logger's default "[2024-01-01T10:00:00Z ERROR app::trt] msg"
    "env_logger": lambda s, m: f"[2024-01-01T10:00:00Z {_UPPER[s]:<5} app::trt] {m}",
    # logback / log4j's common "%d [%thread] %-5level %logger{36} - %msg"
    "logback": lambda s, m: f"2024-01-01 10:00:00,123 [main] {_UPPER[s]:<5} c.e.TrtBuilder - {m}",
    # zap's console encoder: time, level, caller, message separated by tabs
    "zap": lambda s, m: f"2024-01-01T10:00:00.123Z\t{_UPPER[s]}\ttrt/builder.go:42\t{m}",
    # journalctl's short output of a service that prints "[E] ..." itself
    "journald": lambda s, m: f"Jan 01 10:00:00 jetson infer[1234]: [{LETTER[s]}] {m}",
}
KNOWN_GAPS: dict[str, str] = {}


@pytest.mark.parametrize("logger", sorted(LOGGERS))
def test_tensorrt_lines_read_alike_from_more_loggers(corpus_dir: Path, logger: str) -> None:
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
    assert not failures, f"{logger}: {len(failures)} cases\n" + "\n".join(failures[:20])
