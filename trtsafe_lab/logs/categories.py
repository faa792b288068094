"""What kind of failure a message's wording states: the category rules.

:data:`CATEGORY_RULES` maps a message to one category of the package's vocabulary
(``tests/data/logs/README.md``, "Category vocabulary"), first match wins; :func:`message_category`
applies them outside the tokens shaped like layer names. The sets below say which categories
are not fatal, which make a warning a finding, and which phase a category implies; the content
patterns say when an untagged line is an error and when a message is about tactics or running
an engine.
"""

from __future__ import annotations

import itertools
import re

from trtsafe_lab.logs.layer_names import SAFETY
from trtsafe_lab.logs.name_tokens import (
    NATIVE_SOURCE_EXTENSION,
    SOURCE_EXTENSION,
    looks_like_strong_name,
)

UNTAGGED_ERROR = re.compile(
    r"Error Code:? \d{1,9}: |\bError\[\d{1,9}\]: "
    # what an untagged line states as impossible (apps that print TensorRT's or the parser's
    # errors without a severity: "Layer: X's output can not be used as shape tensor.")
    r"|\bcan ?not be\b|\bcannot be\b|\bmust not be\b|\bmust have distinct\b|^Unsupported\b"
    r"|\bbut \d{1,20} (?:was|were) expected\b|Assertion `|\bdimensions are required for input\b"
    # the C++ runtime's last words when an exception escapes (a converter's thrown error)
    r"|^terminate called after throwing\b"
    # ONNX Runtime's status as its exceptions print it ("[ONNXRuntimeError] : 11 : EP_FAIL :
    # ...", onnxruntime/core/common/status.cc)
    r"|\[ONNXRuntimeError\] : \d{1,3} : [A-Z_]{1,40} : "
    # pytest's short test summary "FAILED tests/x.py::test_y - RuntimeError: " (any line)
    r"|(?:^|\n)FAILED \S{1,500} - (?:[A-Za-z_][\w.]{0,80}\.)?[A-Z]\w{0,60}(?:Error|Exception):"
    r"(?=\s|$)"
    # Torch-TensorRT's conversion error printed without its logger tag
    r"|^Unable to convert node: "
    # the UFF parser's own errors, printed by an app without a severity
    r"|^U(?:FF|ff)Parser: (?:Validator|Parser) error: "
    # the last line of a Python traceback / a thrown C++ error ("RuntimeError: [Error thrown
    # at core/conversion/conversion.cpp:125] ...", Torch-TensorRT's TORCHTRT_CHECK)
    r"|^(?:[A-Za-z_][\w.]{0,80}\.)?[A-Z]\w{0,60}(?:Error|Exception):(?=\s|$)"
    # TensorRT 5-7's own form: "../builder/tacticOptimizer.cpp (3142) - Misc Error in f: -1 (...)"
    rf"|\.{NATIVE_SOURCE_EXTENSION} \(\d{{1,9}}\) - [\w ]{{0,40}}Error in "
)
TACTIC_CONTENT = re.compile(r"Autotuner|[Ss]kipping tactic|computeCosts|getBestTactic")
RUNTIME_CONTENT = re.compile(
    r"[Dd]eserializ|Inference set up failed|Got invalid engine|enqueue\w{0,40} failed"
    r"|execution context"
)

_DTYPE = r"(?:Int32|Int64|Int8|Float|Half|Bool|INT32|INT64|INT8|FLOAT|HALF|BOOL|UINT8)\b"

# --- categories, first match wins --------------------------------------------------------------
CATEGORY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("safety-scope", SAFETY),
    ("no-tactic", re.compile(r"No tactic available|no tactics to implement")),
    # also strict mode's warning "No implementation of layer X obeys the requested constraints
    # in strict mode. No conforming implementation was found ..." (the fastest one is used)
    (
        "no-implementation",
        re.compile(
            r"[Cc]ould not find any implementation|No implementation of layer\b"
            r"|Unable to find valid implementation for layer\b"
        ),
    ),
    # the plugin was found but creating it failed ("In function importFallbackPluginImporter:
    # [8] Assertion failed: plugin && "Could not create plugin"")
    ("plugin", re.compile(r"Could not create plugin")),
    (
        "parser-unsupported",
        re.compile(
            # (onnx-tensorrt's UNSUPPORTED_NODE: no importer for the op; its _ATTR / _INPUT /
            # _DATATYPE / _DYNAMIC codes are an importer's refusal: parser-error, decision D3)
            r"UNSUPPORTED_NODE(?!_)|No importer registered|Plugin not found|could not find plugin"
            # onnx-tensorrt's "X plugin was not found in the plugin registry!" assertion
            r"|plugin was not found"
            # TF-contrib's convert_graph.cc: a subgraph left to TensorFlow ("subgraph conversion
            # error for subgraph_index:0 due to: ... SKIPPING")
            r"|subgraph conversion error"
            # Torch-TensorRT (TorchScript): "Unable to convert node: %x : ... (conversion.AddLayer)
            # ... Converter for aten::elu requested, but no such converter was found."
            r"|no such converter was found"
            r"|Unsupported operation|converter rejected|[Ff]alling back to PyTorch|run in PyTorch"
            # TF-TRT's segmenter leaves the node to TensorFlow (segment.cc, at VLOG(1))
            r"|(?:Not a|Blacklisted as|Denylisted as) TF-TRT candidate"
            r"|In function check\w+:"
        ),
    ),
    (
        "parser-error",
        re.compile(
            # an importer that refuses a data type or attribute value of its op (decision D3:
            # "Unsupported ONNX data type: UINT8 (2)", "UNSUPPORTED_NODE_ATTR: ... Attribute
            # reduction is not supported.")
            r"UNSUPPORTED_NODE_\w|[Uu]nsupported (?:ONNX )?(?:data |input )?type"
            r"|While parsing node|In function (?:import|parse)\w*:|INVALID_NODE|Invalid Node"
            r"|Exception occurred in - "
            r"|[Ff]ailed to parse|Parsing model failed|Fail(?:ed)? parsing|Parsing File Failed"
            r"|Failed to load ONNX"
            # Torch-TensorRT's evaluator: "Failed to evaluate node: %0 : int = aten::len(%1)"
            r"|Failed to evaluate node"
            # PyTorch's IR has no operator schema for a TorchScript node (torch/csrc/jit/ir,
            # "Schema not found for node. File a bug report.\nNode: %x : int = aten::add(...)")
            r"|Schema not found for node"
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
    # TensorRT's error class itself, before the wording (decision D1): Error Code 3 is
    # kINVALID_ARGUMENT / "API Usage Error" ("X: at least 1 dimensions are required for input."
    # is an API misuse), and so is a printed kind "API Usage Error" under another code; the
    # messages TensorRT raises with code 3 are api-usage printed without it too (old versions,
    # apps printing the bare message): the convolution's weight-count checks "X:kernel weights
    # has count N but M was expected" (and "bias weights", "3: " in n1042) and the rank check
    # "X: at least N dimensions are required for input" (both "3: X: ..." in train logs;
    # classify also reads the logger's "3: ")
    (
        "api-usage",
        re.compile(
            r"Error Code:? 3: |\bError\[3\]: |API Usage Error"
            r"|(?:kernel|bias) weights has count \d{1,20} but\b"
            r"|\bat least \d{1,9} dimensions are required"
        ),
    ),
    # Error Code 2 is kINTERNAL_ERROR: "(X: unexpected negative axis)" is TensorRT's own failure
    ("internal-error", re.compile(r"Error Code:? 2: Internal Error \((?!Assertion)")),
    ("dla", re.compile(r"\bDLA\b|NVMEDIA_DLA|kDLA")),
    # the build stops on a layer's scratch-space request ("Internal error: plugin node X
    # requires 3990561489024 bytes of scratch space, but only 25393692672 is available.")
    # or on a library's failed allocation (cuDNN's / cuBLAS's "CUDNN_STATUS_ALLOC_FAILED")
    ("out-of-memory", re.compile(r"bytes of scratch space, but only\b|_STATUS_ALLOC_FAILED\b")),
    ("plugin", re.compile(r"[Pp]lugin")),
    # A data-type or usage contract of the layer, before the shape words of its subject ("X:
    # kernel weights are not permitted since they are of type Int32", "X: elementwise inputs
    # must not be Int32", "operation POW requires inputs with activation type", "ShapeLayer
    # output tensor (...) used as an execution tensor, but must be used only as shape tensor")
    (
        "api-usage",
        re.compile(
            r"incompatible (?:input )?(?:data ?)?types?\b"
            rf"|\b(?:must|can ?not|cannot) (?:not )?be (?:of type )?k?{_DTYPE}"
            rf"|\b(?:are|is) of type k?{_DTYPE}|requires inputs? with [\w /]{{1,200}}? type\b"
            r"|used as an execution tensor"
            # a layer precision the builder rejects ("X: cannot use precision Int32 with
            # weights of type Float")
            r"|\bcannot use precision\b"
            # a layer's weights of a type it cannot hold ("X: invalid weights type of Bool")
            r"|\binvalid weights type\b"
        ),
    ),
    (
        "shape",
        re.compile(
            r"IShuffleLayer applied|broadcast|dimensions not compatible|Shape Error"
            r"|[Rr]eshap|kernel weights|weights in kernel|\bdimensions?\b|\bshapes?\b"
            r"|out of bounds access|ISliceLayer|\baxis\b|[Oo]utput ?[Ee]xtent"
            # the shape checker's verdict on a condition ("Shape Error (inherently false
            # condition)", also printed alone: "Error[4]: inherently false condition")
            r"|\binherently false condition\b"
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
            # a shuffle layer's permutation the API rejects (TensorRT 4-7: "X: first transpose
            # is not valid")
            r"|\b(?:first|second) transpose is not valid\b"
            # what the API allows only in a mode: "two inputs (data and weights) are allowed
            # only in explicit-quantization mode"
            r"|\ballowed only (?:in|for|with|when)\b|\bonly allowed (?:in|for|with|when)\b"
            # a network definition the API rejects: two layers of one name
            r"|\bmust have distinct names\b"
        ),
    ),
    ("runtime-failed", RUNTIME_CONTENT),
    (
        "build-failed",
        re.compile(
            r"Engine could not be created|Engine set up failed"
            # Torch-TensorRT's ConversionCtx: "Building TensorRT engine failed", "Building
            # serialized network failed in TensorRT"
            r"|Building (?:TensorRT |serialized )?(?:engine|network) failed"
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
PHASE_BY_CATEGORY = {
    "no-tactic": "tactic",
    "no-implementation": "tactic",
    "tactic-out-of-memory": "tactic",
    "tactic-failure": "tactic",
    "parser-unsupported": "parse",
    "parser-error": "parse",
    "runtime-failed": "runtime",
}

# Where TensorRT raised it, when the wording says nothing: the builder's shape analyzer
# ("[graphShapeAnalyzer.cpp::...::analyzeShapes::2084] ... (ITopKLayer /TopK: K exceeds ...)")
_CODE_FILE = re.compile(rf"\.{SOURCE_EXTENSION}\b")
_SHAPE_LOCATION = re.compile(r"[Ss]hapeAnalyzer|analyzeShapes|shapeMachine|ShapeNodeRemover")
# A source location "[file.cpp::function::line]" says where TensorRT raised an error: the
# component or step it names decides a category ("[pluginV2Builder.cpp::reportPluginError::23]"
# plugin, "[myelinBuilderUtils.cpp::...]" myelin, "[convolutionNode.cpp::computeOutputExtents::55]"
# shape), but the API call that was running does not say the build failed for no other reason
# ("[standardEngineBuilder.cpp::buildEngine::2266]", "[builder.cpp::buildSerializedNetwork::751]")
_LOCATION = re.compile(rf"\[[\w./\\-]{{1,300}}\.{SOURCE_EXTENSION}::[\w:~()<>]{{1,300}}\]")
_NOT_FROM_LOCATION = frozenset({"build-failed"})
MAX_RULE_MATCHES = 16  # matches of one category rule looked at in one message


def rule_category(message: str) -> str:
    """The first category whose rule matches anywhere in ``message`` ("" when none)."""
    return _first_category(message, outside_names=False)


def message_category(message: str) -> str:
    """The category of a record's wording: the first rule with a match outside the tokens shaped
    like layer names (``Reshape_3: Using attribute allowzero ...`` is no shape error; a source
    location such as ``[myelinBuilderUtils.cpp::...]`` keeps its words)."""
    category = _first_category(message, outside_names=True)
    return category or ("shape" if _SHAPE_LOCATION.search(message) else "")


def wording_category(message: str) -> str:
    """The category of what the error says, not of where it was raised: :func:`message_category`
    with the source locations blanked (a plugin runner's "[pluginV2DynamicExtRunner.cpp::execute
    ::115] Error Code 2: Internal Error (Assertion status == kSTATUS_SUCCESS failed.)" is an
    internal error, decision D6)."""
    return message_category(_LOCATION.sub(" ", message) if "::" in message else message)


def _first_category(message: str, *, outside_names: bool) -> str:
    """The first category with a rule match that counts: outside the tokens shaped like layer
    names when ``outside_names``; for :data:`_NOT_FROM_LOCATION`, outside source locations."""
    for name, pattern in CATEGORY_RULES:
        for match in itertools.islice(pattern.finditer(message), MAX_RULE_MATCHES):
            if outside_names and _inside_a_name(message, match.start(), match.end()):
                continue
            if name not in _NOT_FROM_LOCATION or not _in_location(message, match.start()):
                return name
    return ""


def _in_location(message: str, position: int) -> bool:
    """Is ``position`` inside a source location ``[file.cpp::function::line]`` of ``message``?"""
    return "::" in message and any(
        where.start() <= position < where.end() for where in _LOCATION.finditer(message)
    )


def _inside_a_name(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` part of a whitespace-delimited token shaped like a layer name?"""
    left = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start), text.rfind("\t", 0, start))
    right = min(
        (p for p in (text.find(" ", end), text.find("\n", end), text.find("\t", end)) if p >= 0),
        default=len(text),
    )
    token = text[left + 1 : right]
    return looks_like_strong_name(token.strip("'\"()[]{},;")) and not _CODE_FILE.search(token)
