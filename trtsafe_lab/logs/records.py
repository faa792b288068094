"""Split log text into records: one record per logged message, continuation lines attached.

A *line* here is one physical line of the file (split on ``\\n`` only; a trailing ``\\r`` is
dropped, other bytes are kept). A line whose start carries a timestamp, a severity tag or a
logger tag starts a new record; an untagged line continues the previous record (multi-line
messages, ONNX node dumps, tracebacks), up to :data:`MAX_CONTINUATION` lines. Several records
printed on one line (``... volume [12:15:24] [E] [TRT] Instruction: ...``) are split apart and
keep that line's number. Nothing here raises on odd input: any text gives records.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from trtsafe_lab.logs.triggers import BARE_MESSAGE, has_trigger
from trtsafe_lab.text import ANSI_CSI_BODY

MAX_CONTINUATION = 400  # untagged lines attached to one record before a new one is started
MAX_LINE_CHARS = 1 << 20  # characters of one line kept for matching (the rest is cut off)
MAX_RECORDS_PER_LINE = 64  # records split apart on one line; the rest stays in the last one
# Prefix tokens are short: each match is handed this many characters at most, so stripping
# many stacked prefixes costs time linear in the line (a token is at most ~130 characters; a
# longer run of whitespace is taken as several tokens).
TOKEN_WINDOW = 256

_TIME = r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
_DATE_TIME = r"\d{1,4}[/-]\d{1,2}[/-]\d{1,4}[-T ]" + _TIME
_SEVERITY_LETTERS = {
    "E": "error",
    "W": "warning",
    "I": "info",
    "V": "verbose",
    "F": "internal_error",
    "!": "critical",
    "D": "verbose",
    "S": "verbose",
    "X": "verbose",
    "U": "verbose",
}
_SEVERITY_WORDS = {
    "ERROR": "error",
    "WARNING": "warning",
    "WARN": "warning",
    "INFO": "info",
    "VERBOSE": "verbose",
    "DEBUG": "verbose",
    "INTERNAL ERROR": "internal_error",
    "INTERNAL_ERROR": "internal_error",
    "CRITICAL": "critical",
    "FATAL": "internal_error",
    # loguru's two levels beyond Python logging's (its level table: TRACE 5, below DEBUG 10;
    # SUCCESS 25, between INFO 20 and WARNING 30)
    "TRACE": "verbose",
    "SUCCESS": "info",
}

_PY_LEVELS = "CRITICAL|ERROR|WARNING|INFO|DEBUG"
# One prefix token at the current position; the parser strips tokens until none matches.
_TOKEN = re.compile(
    r"""
    (?P<ws>\s{1,64})
  | \[(?P<ts>""" + _DATE_TIME + "|" + _TIME + r""")\]
  | \[(?P<ts_sev>\d{4}-\d\d-\d\d\ """ + _TIME + r""")\s+
        (?P<sev_in_ts>ERROR|WARNING|INFO|VERBOSE|INTERNAL_ERROR)\]
  | (?P<iso>\d{4}-\d\d-\d\d[ T:]""" + _TIME + r""")\d*(?:Z|[+-]\d\d:?\d\d)?:?
  # Python logging's own formats after the time: "- name - ERROR - " (the logging cookbook's
  # "%(asctime)s - %(name)s - %(levelname)s - %(message)s"), loguru's "| ERROR    |
  # module:function:42 - ", mmcv's ",root ERROR    [utils.py:43] ", pytest's captured
  # "ERROR    root:builder.py:42 " (its logger:file:line after the level word)
  | -\ (?:[\w.<>-]{1,80}\ -\ )?(?P<dashsev>""" + _PY_LEVELS + r""")\ -[ ]
  | \|\ (?P<barsev>""" + _PY_LEVELS + r"""|SUCCESS|TRACE)\s{1,8}\|(?:\ [\w.<>:-]{1,200}\ -)?[ ]
  | ,[\w.<>-]{1,80}\ (?P<commasev>""" + _PY_LEVELS + r""")\s{1,8}\[[\w.-]{1,80}:\d{1,9}\]
  | (?P<pyloc>[\w.<>-]{1,80}:[\w.<>-]{1,80}\.py:\d{1,9})(?=\ )
  # ROS 2 (rclcpp/rclpy): "[ERROR] [1700000000.123456789] [node]: "
  | \[(?P<rossev>""" + _PY_LEVELS + r"""|WARN|FATAL)\]\ \[\d{9,10}\.\d{1,9}\]\ \[[\w./-]{1,80}\]:
  | \[(?P<sev>[EWIVF!DSXU])\]
  | \[(?P<ort>[EWIV]):onnxruntime:[^\]]{0,100}\]
  | \[(?P<tag>TRT|TensorRT|TensorRT-LLM|Torch-TensorRT|TRTorch)\]:?
  | \[(?:TRT|TensorRT)\ (?P<tagsev>ERROR|WARNING|INFO|VERBOSE|INTERNAL_ERROR)\]
  | \[\ ?(?P<lsev>error|warn|warning|info|verbose|debug|fatal
          |ERROR|WARN|WARNING|INFO|VERBOSE|DEBUG|FATAL)\ ?\](?:\[[\w.-]{1,80}:\d{1,9}\]:?)?
  | (?P<nvinfer>NVInfer):[ ]
  | \[(?P<apptag>[A-Za-z][\w-]{0,40}-Cookbook|polygraphy|Polygraphy)\]
  | (?P<word>INTERNAL[ _]ERROR|ERROR|WARNING|WARN|INFO|VERBOSE|DEBUG|CRITICAL|FATAL)
        (?::(?P<logger>[A-Za-z_][\w.]*):(?!:)|:|\s{1,8}[\w.$]{2,120}\ -(?=\ )|\b(?=\s))
  | \[(?P<ctx>(?:TRTorch|Torch-TensorRT)[^\]]{0,100})\]\ -
  | (?P<absl>[EWIF])\d{4}\ """ + _TIME + r"""\s{1,8}\d{1,9}\ [\w./-]{1,80}:\d{1,9}\]
  | (?P<tf>[EWIF])\ (?=(?:tensorflow|third_party)/)[\w./-]{1,80}:\d{1,9}\]
  | (?P<tflogger>DefaultLogger)(?=\ )  # TF-TRT's Logger prints its name (trt_logger.cc)
  # logging libraries' default formats around an app's ILogger callback: spdlog's logger name
  # before its level ("[2024-01-01 10:00:00.123] [trt] [error] "), a thread before a level word
  # (logback / log4j "... [main] ERROR c.e.Trt - "; the level word's alternative takes the
  # logger after it),
  # Rust env_logger's "[2024-01-01T10:00:00Z ERROR app::trt] ", Go zap's caller
  # ("...Z\tERROR\ttrt/builder.go:42\t"), journald's "Jan 01 10:00:00 host unit[1234]: "
  | \[[a-z][\w.-]{0,40}\](?=\ \[\ ?(?:error|warn|warning|info|debug|trace|critical)\ ?\])
  | \[[\w.-]{1,40}\](?=\ (?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL)\b)
  | \[\d{4}-\d\d-\d\dT""" + _TIME + r"""Z?\ (?P<envsev>ERROR|WARN|INFO|DEBUG|TRACE)\s{1,4}
        [\w:.-]{1,120}\]
  | [\w./-]{1,200}\.(?:go|rs|java|kt):\d{1,9}(?=\s)
  | (?P<journal>[A-Z][a-z]{2}\ [\ \d]\d\ """ + _TIME + r""")
        \ [\w.-]{1,80}\ [\w.@-]{1,80}\[\d{1,9}\]:
    """,
    re.VERBOSE,
)
# A terminal colour code (an ANSI CSI sequence: Polygraphy colours its severities, CI logs keep
# colours), or its text where a log went through a repr or JSON ("\\x1b[31m", "\\u001b[0m"), or
# a Python list of them printed as text ("['\\x1b[38;5;9m']", n988): no message text
_ANSI = r"(?:\x1b|\\x1b|\\033|\\u001b)" + ANSI_CSI_BODY
_ANSI_WRAPPER = r"\['(?:" + _ANSI + r"){1,4}'\]|" + _ANSI
_ANSI_TAIL = re.compile(r"(?:" + _ANSI + r"){1,8}[ \t]{0,64}$")
# docker compose's service prefix before each line of a container's output ("triton-models-1    |
# I0223 11:55:15.535936 123 logging.cc:43] ..."): a wrapper like a markdown quote, on every line
_COMPOSE = r"[A-Za-z0-9][\w.-]{0,80}[-_]\d{1,4} {1,40}\|(?: |$)"
# a CI runner's or a container runtime's time before each line of the output it captured
# (Jenkins' timestamper "[2024-01-01T10:00:00.123Z] ", `kubectl logs --timestamps` / `docker
# logs -t` "2024-01-01T10:00:00.123456789Z ", GitHub Actions' raw log): UTC ISO time with a
# "Z", which TensorRT and its tools never print; a wrapper like the compose prefix
_ISO_Z = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?Z"
_CI_TIME = r"(?:\[" + _ISO_Z + r"\]|" + _ISO_Z + r")(?:[ \t]|$)"
# A line's indentation: spaces, tabs and the no-break spaces a copy from a web page leaves
_INDENT = " \t\u00a0"
# Tokens that may only appear at the very start of a line (a user's copy cut them short, or
# wrapped it in a markdown quote "> " or bold "**").
# ROS 2 launch prints each node's output behind "[node_name-N] " (then the logger's own tags);
# ctest -V each test's output behind its number "1: " (taken only before a timestamp).
_START_TOKEN = re.compile(
    "["
    + _INDENT
    + r"]{0,64}(?:(?P<quote>> ?|\*\*|`|\d{1,4}: (?=\d{4}-\d\d-\d\d[ T]\d|\[\d{1,4}[/-]\d)|"
    + _CI_TIME
    + r"|"
    + _COMPOSE
    + r"|"
    + _ANSI_WRAPPER
    + r")"
    r"|(?P<ts>" + _DATE_TIME + r")\]|(?P<sev>[EWIVF])\] (?=\S)"
    r"|(?P<launch>\[[A-Za-z_][\w.]{0,80}-\d{1,4}\] (?=\[))"
    # an app's own tag glued to its timestamp: "[TH_YF8S][25-12-22 10:26:11][TRT] ..." (n924)
    r"|(?P<apptag>\[[A-Za-z_][\w.-]{0,40}\](?=\[" + _DATE_TIME + r"\])))"
)
_ERROR_NUMBER = re.compile(r"(\d{1,2}): ")
# Another record starting in the middle of a line: " [12:15:24] [E] [TRT] ..."
_MID_LINE_RECORD = re.compile(r"\s(?=\[(?:" + _DATE_TIME + "|" + _TIME + r")\] \[[EWIVF!]\] )")
# Untagged lines that nevertheless start a record of their own.
_STANDALONE = re.compile(
    r"While parsing node number|^In node \d|^Traceback \(most recent call last\)|^&&&& "
    r"|^Error: |^Error\[\d{1,9}\]: |^Segmentation fault|^terminate called after throwing"
    # TensorRT's own error, even indented under an application's exception message
    # (after the error number and the source location TensorRT's error recorder prints first:
    # "1: [convolutionRunner.cpp::executeConv::465] Error Code 1: Cudnn (...)")
    r"|^(?:\d{1,2}: \[[^\]\s]{1,300}\] )?(?:I[A-Z]\w{0,60}::\w{1,80}: )?Error Code:? \d{1,9}: "
    # glibc's assert message: the process dies ("trtexec: graph.cpp:1059: f(): Assertion `x'")
    r"|: Assertion `"
    # the ONNX parser's error head printed bare ("builtin_op_importers.cpp:2179 In function
    # importPad:"; its logger prints "ERROR: " first)
    r"|^[\w./\\-]{1,300}\.cpp:\d{1,9} In function \w{1,200}:"
)


@dataclass
class Prefix:
    """What the start of one line says about its record.

    Records of identical lines share one object (see :func:`line_parts`): read-only once
    :func:`parse_prefix` has built it.
    """

    timestamp: str = ""
    severity: str = ""
    source: str = ""
    error_number: int | None = None
    tagged: bool = False
    letter: bool = False  # severity given as a bracketed letter ([E], [W], ...)


@dataclass
class Record:
    """One logged message: its first line's prefix and every line's text without prefixes."""

    line: int
    prefix: Prefix
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)
    hit: bool = False  # one of its lines matched the failure trigger (see triggers.py)

    @property
    def end_line(self) -> int:
        return self.lines[-1][0] if self.lines else self.line

    @property
    def message(self) -> str:
        return "\n".join(text for _, text in self.lines)


def parse_prefix(text: str) -> tuple[Prefix, str]:
    """Strip timestamps, severity and logger tags from the start of ``text``.

    Returns what was found and the rest of the line (the message).
    """
    prefix = Prefix()
    pos = 0
    closer = ""  # the paste opened the line with "**" or "`": its closing one is no message text
    start = _START_TOKEN.match(text, 0, TOKEN_WINDOW)
    while start is not None:
        if start.group("quote") in ("**", "`"):
            closer = start.group("quote")
        if start.group("ts"):
            prefix.timestamp = prefix.timestamp or start.group("ts")
        elif start.group("sev"):
            prefix.severity = _SEVERITY_LETTERS[start.group("sev")]
            prefix.letter = True
        prefix.tagged = prefix.tagged or start.group("quote") is None
        pos = start.end()
        if start.group("quote") is None:
            break
        start = _START_TOKEN.match(text, pos, pos + TOKEN_WINDOW)
    saw_number = False
    glog = False
    while True:
        token = _TOKEN.match(text, pos, pos + TOKEN_WINDOW)
        if token is None or token.end() == pos:
            break
        kind = token.lastgroup  # one name per alternative (the last group it closed)
        if kind in ("ts", "iso"):
            prefix.timestamp = prefix.timestamp or token.group(kind)
        elif kind == "sev_in_ts":
            prefix.timestamp = prefix.timestamp or token.group("ts_sev")
            prefix.severity = _SEVERITY_WORDS[token.group(kind)]
            prefix.source = prefix.source or "tensorrt"
        elif kind == "sev":
            prefix.severity = _SEVERITY_LETTERS[token.group(kind)]
            prefix.letter = True
        elif kind == "ort":
            prefix.severity = _SEVERITY_LETTERS[token.group(kind)]
            prefix.source = "onnxruntime"
        elif kind in ("tagsev", "lsev"):  # "[TRT ERROR] ...", tensorRT_Pro's "[error][f.cpp:30]:"
            word = token.group(kind).upper()
            word = "WARNING" if word == "WARN" else word.replace("_", " ")
            prefix.severity = _SEVERITY_WORDS[word]
            prefix.source = prefix.source or ("tensorrt" if kind == "tagsev" else "app")
        elif kind in ("dashsev", "barsev", "commasev", "rossev"):  # Python logging, ROS 2
            word = token.group(kind)
            prefix.severity = _SEVERITY_WORDS[word]
            prefix.source = prefix.source or "python-logging"
        elif kind == "nvinfer":  # tensorRT_Pro's logger tag for TensorRT's messages
            prefix.source = "tensorrt"
        elif kind == "tag":
            if token.group().endswith(":") and prefix.severity:
                prefix.source = "deepstream"  # nvinfer's "ERROR: [TRT]: ..."
            prefix.source = prefix.source or (
                "torch-tensorrt" if "orch" in token.group(kind) else "tensorrt"
            )
        elif kind == "apptag":
            prefix.source = prefix.source or (
                "polygraphy" if "olygraphy" in token.group(kind) else "app"
            )
        elif kind in ("word", "logger"):
            prefix.severity = _SEVERITY_WORDS[token.group("word").replace("_", " ")]
            if kind == "logger":
                prefix.source = prefix.source or "python-logging"
        elif kind == "ctx":
            ctx = token.group(kind)
            prefix.source = "trtorch" if ctx.startswith("TRTorch") else "torch-tensorrt"
        elif kind == "envsev":
            word = token.group(kind)
            prefix.severity = _SEVERITY_WORDS[word]
            prefix.source = prefix.source or "app"
        elif kind == "journal":
            prefix.timestamp = prefix.timestamp or token.group(kind)
        elif kind in ("absl", "tf"):
            prefix.severity = _SEVERITY_LETTERS[token.group(kind)]
            prefix.source = "tf-trt"
            glog = True
        if kind != "ws":
            prefix.tagged = True
        pos = token.end()
        if prefix.severity in ("error", "internal_error", "critical") and not saw_number:
            number = _ERROR_NUMBER.match(text, pos, pos + 4)
            if number is not None:
                prefix.error_number = int(number.group(1))
                pos = number.end()
                saw_number = True
    if prefix.letter and not prefix.source:
        # trtexec prints "[date] [E] ..."; Polygraphy "[E] ..." without a timestamp.
        prefix.source = "trtexec" if prefix.timestamp else "polygraphy"
    rest = text[pos:]
    if closer and rest.endswith(closer):
        rest = rest[: -len(closer)].rstrip()
    if "\x1b" in rest or "\\" in rest:
        rest = _ANSI_TAIL.sub("", rest)  # the colour reset closing a coloured line
    if glog and len(rest) > 1 and rest[0] == '"' and rest.rstrip()[-1] == '"':
        # Triton 24.x quotes each glog message: 'logging.cc:43] "Error Code 4: ... (X: ...)"'
        rest = rest.rstrip()[1:-1].replace('\\"', '"')
    return prefix, rest


def split_line(raw: str) -> list[str]:
    """One physical line -> the records printed on it (usually one)."""
    if len(raw) > MAX_LINE_CHARS:
        raw = raw[:MAX_LINE_CHARS]
    if raw.endswith("\r"):
        raw = raw[:-1]
    if "] [" not in raw[8:]:
        return [raw]
    parts = [part for part in _MID_LINE_RECORD.split(raw, MAX_RECORDS_PER_LINE) if part]
    if len(parts) < 2:
        return [raw]
    # A part that is only prefixes (an application's timestamp stacked in front of TensorRT's)
    # belongs to the record after it. Each part is read once (not the growing merged text), so
    # a line of stacked prefixes costs linear time.
    merged: list[str] = []
    carry: list[str] = []
    for part in parts:
        if not parse_prefix(part)[1].strip():
            carry.append(part)
            continue
        merged.append(" ".join([*carry, part]))
        carry = []
    if carry:
        merged.append(" ".join(carry))
    return merged


@dataclass(frozen=True)
class LinePart:
    """One record's piece of a physical line: its prefix, its message text, the raw piece,
    whether a line of its own would start a record there, and whether it holds a trigger."""

    prefix: Prefix
    text: str
    raw: str
    standalone: bool
    hit: bool


CACHED_LINE_CHARS = 4096  # longer lines are read afresh each time (the cache stays small)


def line_parts(raw: str) -> tuple[LinePart, ...]:
    """The records printed on one physical line, read once: the streaming scan asks whether a
    line starts a record before the parser reads it, so a small cache of recent lines saves
    the second reading. The :class:`Prefix` objects are shared: treat them as read-only."""
    if len(raw) > CACHED_LINE_CHARS:
        return _line_parts(raw)
    return _cached_line_parts(raw)


_NOT_PROSE = re.compile(r"[^a-z \t]")
# a labelled line of a multi-line message ("Engine generation failed with backend strategy 2."
# then "Error message: [optimizer.cpp::...] Error Code 4: ...", shared 006; C++'s terminate
# "terminate called after throwing an instance of 'E'" then "  what():  [enforce fail ...] ...")
_CONTINUATION_LABEL = re.compile(r"(?:Error message|Reason|Details?|Message): |what\(\): ")
_SOURCE_LOCATION = re.compile(r"\[[^\]\s]{1,300}\.(?:cpp|cc|cu|h|hpp)::")


def _bare_start(prefix: Prefix, text: str) -> bool:
    """Does an untagged line start TensorRT's own message, printed bare (see
    triggers.BARE_MESSAGE_PHRASES)? Its fixed wording follows a subject on the same line ("X:
    all concat input tensors ...", "Could not find any implementation for node X"); wording at
    the line's start, or after lower-case words only, continues the message above
    ("[TensorRT] ERROR: [CONCATENATION #13]" then "all concat input tensors ...", n058)."""
    if prefix.tagged or (text.startswith("(") and not text.startswith("(Unnamed Layer* ")):
        return False  # "  (Could not find any implementation for node": a wrapped reason (n224)
    if _CONTINUATION_LABEL.match(text):
        return False  # the backend-strategy warning's "Error message: [...] Error Code 4: ..."
    if _SOURCE_LOCATION.match(text):
        # "[shuffleNode.cpp::symbolicExecute::392] Error Code 4: ...": TensorRT's error as the
        # ONNX parser prints it inside its own error (shared 023); the error recorder's own
        # line starts with its number ("4: [...] Error Code 4", see _STANDALONE)
        return False
    phrase = BARE_MESSAGE.search(text)
    return phrase is not None and _NOT_PROSE.search(text, 0, phrase.start() + 1) is not None


def _line_parts(raw: str) -> tuple[LinePart, ...]:
    parts = []
    for part in split_line(raw):
        prefix, text = parse_prefix(part)
        hit = has_trigger(part)
        standalone = _STANDALONE.search(text) is not None or (hit and _bare_start(prefix, text))
        parts.append(LinePart(prefix, text, part, standalone, hit))
    return tuple(parts)


_cached_line_parts = functools.lru_cache(maxsize=1024)(_line_parts)


_MARKDOWN_OPEN = re.compile(
    r"(?:> ?|\*\*|`|" + _CI_TIME + r"|" + _COMPOSE + r"|" + _ANSI_WRAPPER + r"){1,16}"
)


def _unwrapped(raw: str, indent: int = 0) -> str:
    """A continuation line without the markdown a paste wrapped it in (a leading "> " quote,
    "**" or "`" and the closing "**" / "`") and without the ``indent`` its record's first line
    had (a paste indented as a markdown code block); deeper indentation is the record's own
    (a nested dump: "    stuffed_dims: [8,16]")."""
    raw = raw.rstrip()
    if indent:
        kept = len(raw) - len(raw.lstrip(_INDENT))
        raw = raw[min(indent, kept) :]
    opened = _MARKDOWN_OPEN.match(raw)
    if opened is not None:
        raw = raw[opened.end() :]
        if "\x1b" in raw or "\\" in raw:
            raw = _ANSI_TAIL.sub("", raw)
        closer = "**" if "**" in opened.group() else "`" if "`" in opened.group() else ""
        if closer and raw.endswith(closer):
            raw = raw[: -len(closer)].rstrip()
    return raw


class RecordSplitter:
    """Turns a stream of physical lines into :class:`Record` objects, one at a time."""

    def __init__(self) -> None:
        self._current: Record | None = None
        self._indent = 0  # the leading whitespace of the current record's first line

    def feed(self, line_no: int, raw: str) -> list[Record]:
        """Add one physical line; return the records it completed (oldest first)."""
        done: list[Record] = []
        for part in line_parts(raw):
            current = self._current
            starts = (
                part.prefix.tagged
                or current is None
                or part.standalone
                or len(current.lines) >= MAX_CONTINUATION
            )
            if starts:
                if current is not None:
                    done.append(current)
                self._indent = len(part.raw) - len(part.raw.lstrip(_INDENT))
                self._current = Record(
                    line=line_no, prefix=part.prefix, lines=[(line_no, part.text)], hit=part.hit
                )
            else:
                assert current is not None
                current.lines.append((line_no, _unwrapped(part.raw, self._indent)))
                current.hit = current.hit or part.hit
        return done

    def flush(self) -> list[Record]:
        """Return the record still open (at the end of the input or of a window)."""
        current, self._current = self._current, None
        return [current] if current is not None else []

    @property
    def open_record(self) -> Record | None:
        """The record still open (more lines may continue it); do not change it."""
        return self._current

    def reopen(self, record: Record) -> None:
        """Make ``record`` the open record (nothing may be open): the parser's segment cache
        restores what feeding a repeated segment left open."""
        assert self._current is None
        self._current = record


def is_record_start(raw: str) -> bool:
    """True when ``raw`` (one physical line) starts a new record."""
    first = line_parts(raw)[0]
    return first.prefix.tagged or first.standalone
