"""What a record says: the layers it blames, its category, phase, error code and fatality.

The rules read one :class:`~trtsafe_lab.logs.records.Record` at a time plus a little state
carried between records (:class:`ParseState`): the ONNX parser's current node block (``While
parsing node number N [Op -> "out"]`` header and NodeProto dump), what the last
:data:`CONTEXT_RECORDS` records said (the node a verbose ``ModelImporter.cpp: X [Op] inputs:``
or ``Parsing node: X [Op]`` line names, the category of an error printed just before a node
header), and the phase (parse, build or runtime, from markers such as ``Start parsing network
model``, ``Local timing cache in use``, ``Engine built in`` and ``Starting inference``).

Context reaches :data:`CONTEXT_RECORDS` records back, whatever they are: the ONNX importer
prints a node's ``inputs:`` line, then up to two INFO lines of its own (``No importer registered
for op: X. Attempting to import as plugin.``, ``Searching for plugin: X, ...``) before the error
(onnx-tensorrt ModelImporter.cpp ``parseNode``, builtin plugin fallback). The streaming scan
feeds the same number of records before each trigger, so both read the same context.
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trtsafe_lab.logs.layer_names import SAFETY, line_names
from trtsafe_lab.logs.name_grammar import (
    REFUSAL,
    cut_short,
    is_api_or_enum,
    leading_name,
    looks_like_strong_name,
    positional_names,
    refused_names,
    tensor_names,
)
from trtsafe_lab.logs.records import Record

ERRORISH = frozenset({"error", "internal_error", "critical"})
REPORTED = ERRORISH | {"warning", ""}

# --- ONNX parser blocks ----------------------------------------------------------------------
# ``While parsing node number N [Op -> "out"]``: the head by a pattern, the quoted output (at
# most MAX_HEADER_OUTPUT characters, no newline, up to the last '"]') by str.rfind. As one
# pattern, ``(?: -> "(?P<out>.{0,4096})")?\]``, it backtracked 4096 characters at every head
# of a line that repeats the head without a closing '"]' (0.25 MB/s); see _search_header.
_PARSE_HEADER_HEAD = re.compile(r"While parsing node number (?P<index>-?\d+) \[(?P<op>[^\]\s]*)")
MAX_HEADER_OUTPUT = 4096
_DUMP_NAME = re.compile(r'^name: "(?P<name>.{0,4096})"\s*$')
CONTEXT_RECORDS = 3  # records before a trigger whose importer node / error category it may use
# "X [Op] inputs: [...]" (every version) and "Parsing node: X [Op]" (onnx-tensorrt 8.6+)
# (matched after the "ModelImporter.cpp:NNN: " location when the line has one, else at its start)
_IMPORTER_NODE = re.compile(
    r"(?:(?P<name>[^\s\[][^\n]{0,1023}?) \[(?P<op>\w{1,64})\] inputs: "
    r"|(?:Static check for )?[Pp]arsing node: (?P<parsing>[^\n]{1,1024}?) \[\w{1,64}\]\s*$)"
)
_IMPORTER_LOCATION = re.compile(r"ModelImporter\.cpp:\d{1,9}: ")
# A line that ends where a name should follow ("... implementation for node" + newline + name)
_WRAPPED_ENDINGS = ("node", "node:", "layer", "layer:", "-")
_WRAPPED_BEFORE_NAME = re.compile(
    r"\b(?:for|at|on) (?:node|layer):?\s{0,8}$|Invalid Node -\s{0,8}$"
)
_PARSER_ERROR = re.compile(
    r"(?:ModelImporter|importers?|onnxOpCheckers|onnx2trt\w{0,40})\.cpp:\d{1,9}"
    r" In function \w{1,200}:"
    r"|(?:^|\s)In function import\w+:|In node -?\d+ \(\w+\): [A-Z_]+:|INVALID_NODE|UNSUPPORTED_NODE"
    r"|^Invalid Node - |^Exception occurred in - "
)

# --- phase markers ---------------------------------------------------------------------------
_RUNTIME_MARKER = re.compile(
    r"Engine built in|Engine deserialized in|Engine loaded in|Loaded engine size"
    r"|Starting inference|Loading bytes from \S+\.(?:engine|plan|trt)\b"
)
_BUILD_MARKER = re.compile(
    r"(?:Local|Global) timing cache in use|Finish(?:ed)? parsing network model"
)
_PARSE_MARKER = re.compile(r"Start parsing network model|Input filename:")

_UNTAGGED_ERROR = re.compile(
    r"Error Code:? \d{1,9}: |\bError\[\d{1,9}\]: "
    # what an untagged line states as impossible (apps that print TensorRT's or the parser's
    # errors without a severity: "Layer: X's output can not be used as shape tensor.")
    r"|\bcan ?not be\b|\bcannot be\b|\bmust not be\b|^Unsupported\b"
    # the last line of a Python traceback / a thrown C++ error ("RuntimeError: [Error thrown
    # at core/conversion/conversion.cpp:125] ...", Torch-TensorRT's TORCHTRT_CHECK)
    r"|^(?:[A-Za-z_][\w.]{0,80}\.)?[A-Z]\w{0,60}(?:Error|Exception): "
)
_TACTIC_CONTENT = re.compile(r"Autotuner|[Ss]kipping tactic|computeCosts|getBestTactic")
_RUNTIME_CONTENT = re.compile(
    r"[Dd]eserializ|Inference set up failed|Got invalid engine|enqueue\w{0,40} failed"
    r"|execution context"
)

# --- categories, first match wins --------------------------------------------------------------
CATEGORY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("safety-scope", SAFETY),
    ("no-tactic", re.compile(r"No tactic available|no tactics to implement")),
    ("no-implementation", re.compile(r"[Cc]ould not find any implementation")),
    (
        "parser-unsupported",
        re.compile(
            r"UNSUPPORTED_NODE|No importer registered|Plugin not found|could not find plugin"
            r"|Unsupported operation|converter rejected|[Ff]alling back to PyTorch|run in PyTorch"
            r"|[Uu]nsupported (?:ONNX )?(?:data |input )?type"
            r"|In function check\w+:"
        ),
    ),
    (
        "parser-error",
        re.compile(
            r"While parsing node|In function (?:import|parse)\w*:|INVALID_NODE|Invalid Node"
            r"|Exception occurred in - "
            r"|[Ff]ailed to parse|Parsing model failed|Fail(?:ed)? parsing|Parsing File Failed"
            r"|Failed to load ONNX"
        ),
    ),
    (
        "dla-fallback",
        re.compile(
            r"falling back to GPU|Switching (?:this layer's device type )?to GPU|GPU fallback"
            r"|device type to GPU|not supported (?:for|on) DLA|on DLA requires|DLA only supports"
        ),
    ),
    ("myelin", re.compile(r"[Mm]yelin|foreign node optimizations")),
    # TensorRT's error class itself, before the wording: Error Code 3 is kINVALID_ARGUMENT /
    # "API Usage Error" ("X: at least 1 dimensions are required for input." is an API misuse)
    ("api-usage", re.compile(r"Error Code:? 3: ")),
    ("dla", re.compile(r"\bDLA\b|NVMEDIA_DLA|kDLA")),
    ("plugin", re.compile(r"[Pp]lugin")),
    (
        "shape",
        re.compile(
            r"IShuffleLayer applied|broadcast|dimensions not compatible|Shape Error"
            r"|[Rr]eshap|kernel weights|weights in kernel|\bdimensions?\b|\bshapes?\b"
            r"|out of bounds access|ISliceLayer|\baxis\b|output extent"
        ),
    ),
    (
        "tactic-out-of-memory",
        re.compile(
            r"insuf+icient (?:memory|workspace)|oom error|Requested amount of GPU memory"
            r"|Tactic Device request|Device memory is insufficient|OutOfMemory|out of memory"
            r"|allocator error"
        ),
    ),
    (
        "tactic-failure",
        re.compile(r"[Ss]kipping tactic|getBestTactic|timeReformat|backend strategy"),
    ),
    (
        "api-usage",
        re.compile(
            r"API Usage Error|Parameter check failed|\bnot called\b|\bout of range\b"
            r"|incompatible (?:input )?(?:data ?)?types?\b"
            # a layer's input-type constraint: "X: elementwise inputs must not be Int32"
            r"|\b(?:must|can ?not|cannot) (?:not )?be (?:of type )?k?"
            r"(?:Int32|Int64|Int8|Float|Half|Bool|INT32|INT64|INT8|FLOAT|HALF|BOOL|UINT8)\b"
        ),
    ),
    ("runtime-failed", _RUNTIME_CONTENT),
    (
        "build-failed",
        re.compile(
            r"Engine could not be created|Building engine failed|Engine set up failed"
            r"|Failed to create engine|Engine creation failed|[Bb]uild serialized network failed"
            r"|buildSerializedNetwork(?!: )|buildEngine(?!\w{0,40}: )|&&&& FAILED"
        ),
    ),
    ("internal-error", re.compile(r"Internal Error|Assertion|[Aa]ssert")),
)
NON_FATAL = frozenset({"tactic-out-of-memory", "tactic-failure", "dla-fallback"})
# Warnings become failure rows only for these categories (a warning that merely mentions a
# plugin or Myelin is not a finding).
WARNING_CATEGORIES = frozenset(
    {
        "safety-scope",
        "no-tactic",
        "no-implementation",
        "parser-unsupported",
        "parser-error",
        "shape",
        "dla-fallback",
        "tactic-out-of-memory",
        "tactic-failure",
        "out-of-memory",
    }
)
_PHASE_BY_CATEGORY = {
    "no-tactic": "tactic",
    "no-implementation": "tactic",
    "tactic-out-of-memory": "tactic",
    "tactic-failure": "tactic",
    "parser-unsupported": "parse",
    "parser-error": "parse",
    "runtime-failed": "runtime",
}

# --- error codes and locations ---------------------------------------------------------------
_ERROR_CODE = re.compile(
    r"Error Code:? (?P<code>\d{1,9}): (?:(?P<name>[A-Za-z][\w ]{0,60}?) \(|(?=Skipping))"
    r"|Error\[(?P<bracket>\d+)\]: "
)
_LOCATIONS = (
    re.compile(r"ERROR: (?P<loc>\S{1,300}\.(?:cpp|cc|hpp|h):\d+) In function (?P<func>\w{1,200}):"),
    re.compile(
        r"\[(?P<loc>[\w./\\-]{1,300}\.(?:cpp|cc|cu|h|hpp)::(?P<func>[\w:~]{1,300})::\d+)\]"
    ),
    re.compile(r"\[(?P<loc>[\w./\\-]{1,300}\.(?:cpp|cc|h|hpp):(?P<func>\w{1,200}):\d+)\]"),
    re.compile(r"In (?P<func>[\w:~]{1,300}) at (?P<loc>\S{1,300}:\d+)"),
)
# A bare "file.cpp:NN" / "file.cpp (NN)" location: found from its extension, then walked back.
_EXTENSION = re.compile(r"\.(?:cpp|cc|h|hpp)(?::\d+| \(\d+\))(?:[: ]+In function (\w{1,200}))?")
_PATH_TAIL = re.compile(r"[\w./\\:-]{1,300}$")
_API = re.compile(r"(?P<func>I[A-Z]\w{0,80}::\w{1,80}): ")


@dataclass
class ParseState:
    """State carried from one record to the next."""

    phase: str = "build"
    header_output: str = ""
    header_seen: bool = False
    dump_name: str = ""
    in_dump: bool = False
    dump_depth: int = 0
    # (age, importer node, error category, ends a node import) of those of the last
    # CONTEXT_RECORDS records that said any of these, youngest first (age 0: the record just
    # before); usually () - a hashable value the record cache keys readings on
    recent: tuple[tuple[int, str, str, bool], ...] = ()
    header_line: int = 0
    header_text: str = ""
    header_category: str = ""  # category of the error just before the header
    recent_names: list[str] = field(default_factory=list)  # names of the last reported records
    input_nodes: tuple[str, ...] = ()  # network inputs named as nodes (see _grammar_names)
    # per-text results of the pure rules, for messages the log repeats (see _TextCache)
    category_of: Callable[[str], str] = field(
        default_factory=lambda: _TextCache(_message_category)
    )
    grammar_of: Callable[[str], tuple[tuple[str, ...], tuple[str, ...], str]] = field(
        default_factory=lambda: _TextCache(_line_grammar_uncached)
    )
    names_of: Callable[[str], tuple[tuple[str, str], ...]] = field(
        default_factory=lambda: _TextCache(_line_names_uncached)
    )
    last_error_category: str = ""


@dataclass
class LogFinding:
    """One layer name a record blames, with the category its wording implies."""

    layer: str
    line: int
    category: str = ""


@dataclass
class LogFacts:
    """Everything the rules read from one record."""

    severity: str
    source: str
    error_code: int | None
    error_name: str
    location: str
    function: str
    category: str
    phase: str
    fatal: bool
    findings: list[LogFinding] = field(default_factory=list)
    tensors: list[str] = field(default_factory=list)  # tensor names the message mentions
    framing: bool = False  # an ONNX-parser node header or NodeProto dump, context for an error
    refusal: bool = False  # a framework's converter refused the named nodes (any severity)
    abandoned_block: BlockFinding | None = None  # an earlier node block no error followed


@dataclass(frozen=True)
class BlockFinding:
    """The node of an ONNX-parser block (``While parsing node number N [Op -> "out"]`` and its
    NodeProto dump) that no parser error followed: the parser prints the block only when the
    node fails, so the block alone blames it."""

    layer: str
    line: int
    message: str
    category: str = "parser-error"  # parser-unsupported when an unsupported-op error led to it


class _TextCache:
    """Results of a pure function of one text, for texts seen again.

    Error-dense logs repeat the same messages (one failure per build of a sweep). The cache
    holds at most ``budget`` characters of keys (oldest dropped first), so a hostile log of
    huge distinct lines costs memory bounded by the budget, and every text of any length is
    treated alike (the work per line does not jump at a length threshold).
    """

    def __init__(self, function: Callable[[str], Any], budget: int = 4 << 20) -> None:
        self._function = function
        self._budget = budget
        self._size = 0
        self._items: OrderedDict[str, Any] = OrderedDict()

    def __call__(self, text: str) -> Any:
        if text in self._items:
            return self._items[text]
        value = self._function(text)
        if len(text) <= self._budget:
            self._items[text] = value
            self._size += len(text)
            while self._size > self._budget:
                old, _ = self._items.popitem(last=False)
                self._size -= len(old)
        return value


def _category_uncached(message: str) -> str:
    for name, pattern in CATEGORY_RULES:
        if pattern.search(message):
            return name
    return ""


def _line_grammar_uncached(text: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(tensor names, candidate layer names, the line's own category) of one line."""
    candidates = refused_names(text) + positional_names(text)
    leading = leading_name(text)
    if leading and leading not in candidates:
        candidates.append(leading)
    candidates = [n for n in candidates if not is_api_or_enum(n)]
    category = _category_uncached(_masked(text, candidates)) if candidates else ""
    return tuple(tensor_names(text)), tuple(candidates), category


def _masked(text: str, names: list[str]) -> str:
    """``text`` with the names blanked out, so that a name's words ("Reshape_3", "/conv/Conv")
    do not decide the category of the sentence around it."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, "X")
    return text


# Where TensorRT raised it, when the wording says nothing: the builder's shape analyzer
# ("[graphShapeAnalyzer.cpp::...::analyzeShapes::2084] ... (ITopKLayer /TopK: K exceeds ...)")
_CODE_FILE = re.compile(r"\.(?:cpp|cc|cu|h|hpp|py)\b")
_SHAPE_LOCATION = re.compile(r"[Ss]hapeAnalyzer|analyzeShapes|shapeMachine|ShapeNodeRemover")


def _message_category(message: str) -> str:
    """The category of a record's wording: the first rule with a match outside the tokens shaped
    like layer names (``Reshape_3: Using attribute allowzero ...`` is no shape error; a source
    location such as ``[myelinBuilderUtils.cpp::...]`` keeps its words)."""
    for name, pattern in CATEGORY_RULES:
        for match in itertools.islice(pattern.finditer(message), MAX_RULE_MATCHES):
            if not _inside_a_name(message, match.start(), match.end()):
                return name
    return "shape" if _SHAPE_LOCATION.search(message) else ""


MAX_RULE_MATCHES = 16  # matches of one category rule looked at in one message


def _inside_a_name(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` part of a whitespace-delimited token shaped like a layer name?"""
    left = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start), text.rfind("\t", 0, start))
    right = min(
        (p for p in (text.find(" ", end), text.find("\n", end), text.find("\t", end)) if p >= 0),
        default=len(text),
    )
    token = text[left + 1 : right]
    return looks_like_strong_name(token.strip("'\"()[]{},;")) and not _CODE_FILE.search(token)


def _line_names_uncached(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(line_names(text))


def _error_code(record: Record, message: str) -> tuple[int | None, str]:
    match = _ERROR_CODE.search(message)
    if match is not None:
        code = match.group("code") or match.group("bracket")
        name = match.group("name") or ""
        if match.group("bracket") and not name:
            inner = _ERROR_CODE.search(message, match.end())
            if inner is not None and inner.group("name"):
                name = inner.group("name")
        return int(code), name.strip()
    return record.prefix.error_number, ""


def _location(message: str) -> tuple[str, str]:
    for pattern in _LOCATIONS:
        match = pattern.search(message)
        if match is not None:
            return match.group("loc"), match.group("func") or ""
    extension = _EXTENSION.search(message)
    if extension is not None:
        head = _PATH_TAIL.search(message, max(0, extension.start() - 300), extension.start())
        if head is not None:
            location = message[head.start() : extension.end()]
            function = extension.group(1) or ""
            if function:
                location = location[: location.rfind(" In function")].rstrip(": ")
            return location, function
    api = _API.search(message)
    return ("", api.group("func")) if api else ("", "")


@dataclass(frozen=True)
class HeaderMatch:
    """What the single pattern ``While parsing node number (?P<index>-?\\d+)
    \\[(?P<op>[^\\]\\s]*)(?: -> "(?P<out>.{0,4096})")?\\]`` finds with ``re.search``:
    ``whole`` (its group 0), ``index``, ``op`` and ``out`` (None without an output)."""

    whole: str
    index: str
    op: str
    out: str | None


def _search_header(text: str) -> HeaderMatch | None:
    """The first ONNX-parser node header in ``text`` (see :class:`HeaderMatch`).

    Heads are tried at each occurrence of the literal in turn (one may start inside the
    previous head's op run, which holds no space); a head ends before the next occurrence's
    first space, so each is handed only the text up to there (linear in all)."""
    literal = "While parsing node number "
    position = text.find(literal)
    while position != -1:
        following = text.find(literal, position + 1)
        endpos = len(text) if following == -1 else following + 5  # "While" then a space
        head = _PARSE_HEADER_HEAD.match(text, position, endpos)
        if head is not None:
            index, op, end = head.group("index"), head.group("op"), head.end()
            if text.startswith(' -> "', end):
                start = end + 5
                limit = min(len(text), start + MAX_HEADER_OUTPUT + 2)
                newline = text.find("\n", start, limit)
                close = text.rfind('"]', start, limit if newline == -1 else newline)
                if close != -1:
                    return HeaderMatch(text[position : close + 2], index, op, text[start:close])
            if text.startswith("]", end):
                return HeaderMatch(text[position : end + 1], index, op, None)
        position = following
    return None


def _update_block(state: ParseState, text: str, line_no: int) -> None:
    header = _search_header(text)
    if header is not None:
        state.header_seen = True
        state.header_output = header.out or ""
        state.header_line = line_no
        state.header_text = header.whole
        state.header_category = _recent_error_category(state) or state.last_error_category
        state.dump_name = ""
        state.in_dump = False
        return
    stripped = text.strip()
    if stripped.endswith("--- Begin node ---"):
        state.in_dump = True
        state.dump_depth = 0
        state.dump_name = ""
        return
    if stripped.endswith("--- End node ---"):
        state.in_dump = False
        return
    if state.in_dump:
        if state.dump_depth == 0 and not state.dump_name:
            dump = _DUMP_NAME.match(stripped)
            if dump is not None:
                state.dump_name = dump.group("name")
        state.dump_depth += stripped.count("{") - stripped.count("}")
        state.dump_depth = max(state.dump_depth, 0)


def open_block(state: ParseState) -> BlockFinding | None:
    """The open node block's finding: its dump's node name, else the header's output tensor."""
    name = state.dump_name or state.header_output
    if not state.header_seen or not name:
        return None
    category = "parser-unsupported" if state.header_category == "parser-unsupported" else ""
    return BlockFinding(name, state.header_line, state.header_text, category or "parser-error")


def _reset_block(state: ParseState) -> None:
    state.header_seen = False
    state.header_output = ""
    state.dump_name = ""
    state.in_dump = False


def _dump_text(text: str) -> str:
    """The NodeProto text on an ``ModelImporter.cpp:NNN: input: "x"`` head line."""
    head, sep, rest = text.partition(".cpp:")
    if sep and "ModelImporter" in head:
        _, _, after = rest.partition(": ")
        return after
    return text


MAX_RECENT_NAMES = 64


def _complete_cut_names(
    record: Record, findings: list[LogFinding], state: ParseState
) -> list[LogFinding]:
    """Replace a name cut off with its line by the earlier full name it starts, if any.

    ``... Error Code 10: Internal Error (Could not find any implementation for node /model.22/p``
    (the rest of the line lost) after the same error printed whole names ``/model.22/proto/...``.
    """
    texts = dict(record.lines)
    out: list[LogFinding] = []
    names: set[str] = set()
    for finding in findings:
        if cut_short(texts.get(finding.line, ""), finding.layer):
            cut = finding.layer
            full = next((n for n in state.recent_names if n.startswith(cut) and n != cut), None)
            if full is not None:
                finding = LogFinding(full, finding.line, finding.category)
        if finding.layer not in names:
            names.add(finding.layer)
            out.append(finding)
    for finding in out:
        if finding.layer in state.recent_names:
            state.recent_names.remove(finding.layer)
        state.recent_names.insert(0, finding.layer)
    del state.recent_names[MAX_RECENT_NAMES:]
    return out


def _recent_importer_node(state: ParseState) -> str:
    """The node the importer's last lines named, unless a node import ended since."""
    for _, node, _, ends_import in state.recent:
        if ends_import:
            return ""
        if node:
            return node
    return ""


def _recent_error_category(state: ParseState) -> str:
    """The category of the latest error among the context records ("" when none)."""
    return next((category for _, _, category, _ in state.recent if category), "")


def _reportable_without_names(severity: str, category: str) -> bool:
    if severity in ERRORISH:
        return True
    return severity in ("warning", "") and category in WARNING_CATEGORIES


def _grammar_names(
    record: Record, findings: list[LogFinding], seen: set[str], state: ParseState
) -> list[str]:
    """Add the names standing where TensorRT's grammar puts layers; return tensor names.

    See :mod:`trtsafe_lab.logs.name_grammar`. A name also mentioned as a tensor here is a
    tensor, and so is a network input an earlier record named as a node ("UFFParser: Failed to
    parseInput for node input_1", one of the last :data:`MAX_RECENT_NAMES` such inputs).
    """
    tensors: list[str] = []
    inputs: list[str] = []
    for line_no, text in record.lines:
        line_tensors, candidates, line_category = state.grammar_of(text)
        for tensor in line_tensors:
            if tensor not in tensors:
                tensors.append(tensor)
        if "Input for node" in text:
            inputs.extend(line_tensors)
        for name in candidates:
            if state.input_nodes and name in state.input_nodes:
                continue
            if name not in tensors and not any(name in found for found in seen):
                seen.add(name)
                # the category its own line implies ("X: inputs must have the same shape")
                findings.append(LogFinding(name, line_no, line_category))
    for name in inputs:  # a new tuple (hashable: the record cache keys readings on it)
        if name not in state.input_nodes:
            state.input_nodes = (name, *state.input_nodes)[:MAX_RECENT_NAMES]
    return tensors


def marker_phase(text: str) -> str:
    """The phase a marker line starts ("parse", "build", "runtime") or "" for other lines."""
    if _RUNTIME_MARKER.search(text):
        return "runtime"
    if _PARSE_MARKER.search(text):
        return "parse"
    return "build" if _BUILD_MARKER.search(text) else ""


def examine(record: Record, state: ParseState) -> LogFacts:
    """Read one record, update ``state`` and return what the record says."""
    message = record.message
    prefix = record.prefix
    # Only records that contain a trigger may change the state, so that the streaming scan,
    # which skips the others, reads the same state as a full parse.
    if record.hit:
        for _, text in record.lines:
            state.phase = marker_phase(text) or state.phase
    findings: list[LogFinding] = []
    seen: set[str] = set()
    abandoned: BlockFinding | None = None
    first = _dump_text(record.lines[0][1]) if record.lines else ""
    framing = state.in_dump or _search_header(first) is not None or first.strip() in (
        "--- Begin node ---",
        "--- End node ---",
    )
    before = open_block(state) if record.hit else None
    for index, (line_no, text) in enumerate(record.lines):
        if record.hit:
            _update_block(state, _dump_text(text) if index == 0 else text, line_no)
        named = state.names_of(text)
        if (
            not named
            and index + 1 < len(record.lines)
            and text.rstrip().endswith(_WRAPPED_ENDINGS)
            and _WRAPPED_BEFORE_NAME.search(text)
        ):
            # a hard-wrapped message: the name stands alone on the next line
            named = state.names_of(text.rstrip() + " " + record.lines[index + 1][1].strip())
        for name, category in named:
            if name not in seen:
                seen.add(name)
                findings.append(LogFinding(name, line_no, category))
    importer = None  # the last importer line of the record (a pasted log may lose its tags)
    for _, text in record.lines:
        if "] inputs: " in text or "arsing node: " in text:
            importer_at = _IMPORTER_LOCATION.search(text)
            start = importer_at.end() if importer_at else 0
            importer = _IMPORTER_NODE.match(text, start) or importer
    parser_error = record.hit and _PARSER_ERROR.search(message) is not None
    if parser_error:
        if not findings:
            fallback = (
                state.dump_name
                or state.header_output
                or _recent_importer_node(state)  # a header without output, no dump
            )
            if fallback:
                findings.append(LogFinding(fallback, record.line))
        _reset_block(state)
    elif before is not None and (not framing or _search_header(message)):
        # A node block that no parser error followed: the reason line was cut or lost.
        abandoned = before
        if not framing:
            _reset_block(state)
    category = state.category_of(message)
    if parser_error and category not in ("parser-unsupported", "parser-error"):
        category = "parser-error"
    severity = prefix.severity
    if not severity and (parser_error or _UNTAGGED_ERROR.search(message)):
        severity = "error"  # an application printing the ONNX parser's or TensorRT's errors
    importer_node = (importer.group("name") or importer.group("parsing")) if importer else ""
    error_category = category if severity in ERRORISH else ""
    if state.recent or importer_node or error_category or parser_error:
        aged = tuple(
            (age + 1, node, said, ends)
            for age, node, said, ends in state.recent
            if age + 1 < CONTEXT_RECORDS
        )
        if importer_node or error_category or parser_error:
            aged = ((0, importer_node, error_category, parser_error), *aged)
        state.recent = aged
    refusal = (
        record.hit
        and ("rejected node" in message or "PyTorch" in message)
        and REFUSAL.search(message) is not None
    )
    tensors: list[str] = []
    if record.hit and not framing and (
        refusal or _reportable_without_names(severity, category)
    ):
        tensors = _grammar_names(record, findings, seen, state)
    runtime_content = record.hit and _RUNTIME_CONTENT.search(message) is not None
    phase = _PHASE_BY_CATEGORY.get(category, "")
    if category == "tactic-out-of-memory" and (state.phase == "runtime" or runtime_content):
        phase = ""  # out of memory while deserializing or running, not while autotuning
    if not phase and _TACTIC_CONTENT.search(message):
        phase = "tactic"
    if not phase and runtime_content:
        state.phase = "runtime"
    if not phase:
        phase = state.phase
    if category == "tactic-out-of-memory" and phase == "runtime":
        category = "out-of-memory"
    code, code_name = _error_code(record, message)
    location, function = _location(message)
    fatal = (
        severity in ERRORISH
        and bool(category)
        and category not in NON_FATAL
        and "kipping tactic" not in message
        # ONNX Runtime's TensorRT EP: a node the parser rejects goes to another provider
        and not (prefix.source == "onnxruntime" and category.startswith("parser-"))
    )
    if record.hit and severity in ERRORISH:
        state.last_error_category = category
    if record.hit and findings:
        findings = _complete_cut_names(record, findings, state)
    for finding in findings:
        finding.category = finding.category or category
    return LogFacts(
        severity=severity,
        source=_source(prefix.source, message),
        error_code=code,
        error_name=code_name,
        location=location,
        function=function,
        category=category,
        phase=phase,
        fatal=fatal,
        findings=findings,
        tensors=tensors,
        framing=framing and not parser_error,
        refusal=refusal,
        abandoned_block=abandoned,
    )


_PARSER_SOURCE = re.compile(
    r"ModelImporter|builtin_op_importers|onnxOpCheckers|onnx2trt|While parsing node|In node -?\d"
)


def _source(source: str, message: str) -> str:
    if _PARSER_SOURCE.search(message):
        return "onnx-parser"
    if message.startswith("Error[") and source in ("", "polygraphy"):
        return "trtexec"  # trtexec's "Error[N]:" on a line whose timestamp was cut off
    return source


def is_reported(facts: LogFacts) -> bool:
    """Does this record become failure rows? (names, or an error, or a known warning)."""
    if facts.refusal and facts.findings:
        return True  # reported at DEBUG level, yet it decides what runs outside TensorRT
    if facts.severity not in REPORTED:
        return False
    if facts.findings:
        return True
    if facts.framing:
        return False
    if facts.severity in ERRORISH:
        return True
    return facts.severity == "warning" and facts.category in WARNING_CATEGORIES

