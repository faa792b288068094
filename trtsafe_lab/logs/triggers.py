"""The cheap test that decides which log lines can matter for the failure table.

A record yields failure rows, or changes the parser's state, only when one of its lines matches
a trigger (both in the full parse and in the streaming scan), so the scan may skip every line
between matches without changing the result.

Each trigger is a first byte (``E``, ``W``, ``I``, ``F``, ``!``, ``L``, ``j``, ``P``, ``N``,
``R``, ``(``, ``q``, ``A``, ``U``, ``-``, a logging library's lower-case ``e``, ``w``, ``c``,
and the first byte of each of :data:`BARE_MESSAGE_PHRASES`) followed by one of a few *tails*
(a trigger may start inside a word: the phrase ``rejected node`` is found from its ``j``,
``requested constraints`` from its ``q``); every tail starts with a literal (its *head*).
The streaming scan compiles :data:`TRIGGER_GROUPS` into one Hyperscan database
(:mod:`trtsafe_lab.logs.scan_bytes`), so they use only syntax Hyperscan and Python's ``re`` read
alike (literals, ``\\d``, ``\\w``, groups, alternations, bounded repeats).

Two kinds of trigger: *error* triggers (severity tags and words, ONNX-parser lines, a
``Layer:`` label, a converter's refusal, an app logger's TensorRT tag) and *phase markers* (INFO
lines that start the parse, build or runtime phase).
"""

from __future__ import annotations

import re

_DIGITS = b"0123456789"
_MARKERS = (
    rb"(?:\[T\w{0,20}\]:? )?(?:Starting inference|Loaded engine|Loading bytes from"
    rb"|Local timing cache|Global timing cache|Start parsing network model"
    rb"|Finish(?:ed)? parsing network model"
    rb"|Input filename:)"
)
_TF = ((b" tensorflow/", b""), (b" third_party/", b""), (b":onnxruntime", b""))
_ABSL = tuple((bytes([digit]), rb"\d{3} \d") for digit in _DIGITS)  # E0510 12:34:56.789 ...

# first byte -> error tails, marker tails; a tail is (literal head, regex for the rest).
_TAILS: dict[bytes, tuple[tuple[tuple[bytes, bytes], ...], tuple[tuple[bytes, bytes], ...]]] = {
    b"E": (
        ((b"]", b""), (b"RROR", b""), (b"rror", b""), (b"xception occurred in - ", b""), *_TF,
         *_ABSL),
        ((b"ngine ", rb"(?:built|deserialized|loaded) in"),),
    ),
    b"W": (
        ((b"]", b""), (b"ARN", b""), (b"arn", b""), (b"hile parsing node", b""), *_TF, *_ABSL),
        (),
    ),
    b"I": (
        # the ONNX parser's error head, also printed bare ("builtin_op_importers.cpp:2179 In
        # function importPad:"; records._STANDALONE starts a record at it)
        ((b"n node ", rb"-?\d"), (b"NVALID_NODE", b""), (b"nvalid Node", b""),
         (b"n function ", rb"\w{1,200}:")),
        ((b"] ", _MARKERS), (b"NFO ", _MARKERS), (b"NFO: ", _MARKERS)),
    ),
    b"F": (((b"]", b""), (b"-TRT candidate", b"")), ()),  # trtexec's [F]: kINTERNAL_ERROR
    b"!": (((b"]", b""),), ()),  # Polygraphy's [!]: CRITICAL
    # A name after a "Layer: " label (TensorRT 7's untagged "Layer: X's output can not be used
    # as shape tensor."; "ONNX Layer: X" in autotuner lists).
    b"L": (((b"ayer: ", b""),), ()),
    # A framework's converter refusing a node ("converter rejected node X", Torch-TensorRT's
    # DEBUG-level partitioning notice): matched from its rare "j", not its common "r".
    b"j": (((b"ected node", b""),), ()),
    # its validators' "Falling back to PyTorch" / "will run in PyTorch" (see name_grammar.REFUSAL)
    b"P": (((b"yTorch", b""),), ()),
    # an app logger's tag for TensorRT's messages (tensorRT_Pro: "[error][f.cpp:30]:NVInfer: "),
    # TF-TRT's segmenter leaving a node to TensorFlow, at INFO ("Not a TF-TRT candidate, ...";
    # older "Blacklisted as", newer "Denylisted as TF-TRT candidate", matched from the "-TRT c")
    b"N": (((b"VInfer: ", b""), (b"ot a TF-TRT candidate", b"")), ()),
    # network validation's "Repeated layer name: X (layers must have distinct names)", quoted
    # without its "Error Code 4: Internal Error (" head
    b"R": (((b"epeated layer name: ", b""),), ()),
    # a Paddle-TRT layer name ("conv2d_transpose (Output: x.tmp_0): ..."), which Paddle's bare
    # logger prints without a severity
    b"(": (((b"Output: ", b""),), ()),
    # strict mode's "No implementation of layer X obeys the requested constraints in strict
    # mode." printed without a severity (matched from the rare "q" of "requested")
    b"q": (
        (
            (b"uested constraints in strict mode", b""),
            # TensorRT's rank check of a layer's input, printed bare by apps ("X: at least 4
            # dimensions are required for input")
            (b"uired for input", b""),
        ),
        (),
    ),
    # a logging library's lower-case severity tag ("[error]", "[warning]", "[critical]": spdlog's
    # default pattern, tensorRT_Pro's "[error][f.cpp:30]:"; one space inside is allowed)
    b"e": (((b"rror]", b""), (b"rror ]", b"")), ()),
    b"w": (((b"arn]", b""), (b"arning]", b""), (b"arn ]", b""), (b"arning ]", b"")), ()),
    b"c": (((b"ritical]", b""), (b"ritical ]", b"")), ()),
    # the ONNX parser's NodeProto dump, also when a paste cut its "While parsing node number"
    # header (the dump's name: is then the node a parser error right after blames)
    b"-": (((b"-- Begin node ---", b""),), ()),
    # glibc's assert message when a process dies on a failed assertion ("trtexec: graph.cpp:1059:
    # ...: Assertion `0 && "Unsupported type"' failed.")
    b"A": (((b"ssertion `", b""),), ()),
    # Torch-TensorRT's "Unable to convert node: %x : Tensor = aten::op(...)", also printed bare;
    # the UFF parser's "UFFParser: Validator error: X: Unsupported operation Squeeze" (either
    # spelling), printed bare by apps
    b"U": (
        (
            (b"nable to convert node", b""),
            # TensorFlow's status of a TF-TRT converter's refusal, also pasted without its
            # prefix ("... due to: \"Unimplemented: Operation: X does not support ..., at: N\"")
            (b"nimplemented: ", b""),
            (b"FFParser: ", rb"(?:Validator|Parser) error"),
            (b"ffParser: ", rb"(?:Validator|Parser) error"),
        ),
        (),
    ),
}


# TensorRT's own layer messages, which apps also print bare (``print(msg)``, an exception's text:
# no severity, no logger, no trigger word; train n496, n864, n909): the builder's and the
# network validator's checks of a layer ("X: all concat input tensors must have the same
# dimensions ...", "X: kernel weights has count N but M was expected", "Could not find any
# implementation for node X"), DLA fallback notices and the builder's tactic report. Each
# phrase is part of the message's fixed wording (its template), never of a name; a line that
# holds one and no prefix starts a record of its own (:data:`BARE_MESSAGE`, read by
# records._bare_start and classify).
BARE_MESSAGE_PHRASES: tuple[bytes, ...] = (
    # network validation and the shape analyzer (shape)
    b"concat input tensors", b"dimensions not compatible", b"dimension may be inferred",
    b"broadcast dimensions", b"uninferred dimensions", b"reshaping failed",
    b"last dimension of input", b"weights has count", b"weights in kernel",
    b"non-batch dimensions", b"dimensions are required", b"applied to shape tensor",
    b"zeroIsPlaceHolder",
    b"failed validation", b"ISliceLayer ",
    # a layer's data-type or API contract (api-usage)
    b"inputs must not be", b"used as an execution tensor", b"incompatible input types",
    b"cannot use precision", b"invalid weights type", b"transpose is not valid",
    b"out of range", b"not called", b"must be V2DynamicExt", b"requires at least two inputs",
    # the builder (no-implementation, formats, scratch space, tactic errors)
    b"implementation for node", b"supported formats", b"bytes of scratch space",
    b"obeys the requested constraints",
    b"during getBestTactic: ",
    # DLA's fallback notices (dla-fallback)
    b"on DLA", b"for DLA", b"DLA only supports", b"to GPU for layer", b"device type to GPU",
    # TF-TRT's engine op falling back to TensorFlow
    b"native segment for",
    # a tactic the builder skipped, printed at any level (decision D6: the timed layer's)
    b"Skipping tactic ",
    # the error templates of the tools around TensorRT that name a node (their sources, in
    # tests/fixtures/message_templates.tsv): onnx-tensorrt, Polygraphy, trtexec,
    # Torch-TensorRT (TORCHTRT_CHECK's "Expected X to be true but got false", dynamo's passes),
    # TF-TRT's engine op
    b"unsupported shape-tensor producing layer", b"can be a duplicate of",
    b"Tactic in replay", b"tactic replay", b"out of actual range", b"output types are given in",
    b"Unable to retrieve all node inputs", b"to be true but got false",
    b"does not have the metadata", b"metadata info is missing", b"have a validated entry",
    b"has no node.meta", b"user specified name of the node", b"was already tagged",
    b"Input shapes are empty", b"Input shapes contain scalar", b"inconsistent on the batch dim",
    b"Input shape list size mismatch", b"not found, at ",
    # the UFF parser's error head ("UffParser: Validator error: X: Unsupported operation _Cast")
    b"UffParser: ", b"UFFParser: ",
)


def _with_bare_phrases(
    tails: dict[bytes, tuple[tuple[tuple[bytes, bytes], ...], tuple[tuple[bytes, bytes], ...]]],
) -> dict[bytes, tuple[tuple[tuple[bytes, bytes], ...], tuple[tuple[bytes, bytes], ...]]]:
    """:data:`_TAILS` with each bare-message phrase added as an error tail of its first byte."""
    merged = dict(tails)
    for phrase in BARE_MESSAGE_PHRASES:
        first = phrase[:1]
        errors, markers = merged.get(first, ((), ()))
        merged[first] = ((*errors, (phrase[1:], b"")), markers)
    return merged


_TAILS = _with_bare_phrases(_TAILS)


def _pattern(first: bytes, tails: tuple[tuple[bytes, bytes], ...]) -> bytes:
    return re.escape(first) + b"(?:" + b"|".join(re.escape(h) + rest for h, rest in tails) + b")"


# (first byte, pattern starting with it) for every group, error and marker tails together.
TRIGGER_GROUPS: tuple[tuple[bytes, bytes], ...] = tuple(
    (first, _pattern(first, errors + markers)) for first, (errors, markers) in _TAILS.items()
)
_ERROR_BYTES = re.compile(
    b"|".join(_pattern(first, errors) for first, (errors, _) in _TAILS.items() if errors)
)
_TRIGGER_TEXT = re.compile("|".join(p.decode() for _, p in TRIGGER_GROUPS), re.ASCII)


def has_trigger(text: str) -> bool:
    """True when ``text`` (one line, prefixes included) contains any trigger."""
    return _TRIGGER_TEXT.search(text) is not None


def has_error_trigger(line: bytes | bytearray) -> bool:
    """True when ``line`` holds a trigger other than a phase marker."""
    return _ERROR_BYTES.search(line) is not None


BARE_MESSAGE = re.compile("|".join(re.escape(p.decode()) for p in BARE_MESSAGE_PHRASES))

