"""How far a layer or tensor name runs in a message, and what a name looks like.

TensorRT names are free text: :func:`name_token` reads one from where a message's grammar puts
it (:mod:`~trtsafe_lab.logs.name_grammar`) and knows the shapes names take: fused names joined
by `` + ``, ``{ForeignNode[...]}`` and ``PWN(...)`` groups, ``(Unnamed Layer* 12) [Shuffle]``,
torch2trt's ``[CONVOLUTION #1] torch.nn.Conv2d.forward(...)``, TorchScript statements,
Paddle-TRT's ``op (Output: var)``, ONNX names with ``::``, ``/`` and dots;
:func:`spaced_name_token` continues a scoped name over spaces (``model/up 2/Resize``) and
:func:`closing_quote` finds where a quoted name ends. :func:`looks_like_name` /
:func:`looks_like_strong_name` tell a name from a word of the sentence. Every function walks the
text once: linear in the line.
"""

from __future__ import annotations

import re

MAX_NAME_CHARS = 4096  # longer "names" are not names
MAX_MATCHES = 64  # findings of one kind read from one line
# Torch-TensorRT's util::node_info: a TorchScript statement "%y : Tensor = aten::op(%x, %2)"
# (several outputs "%a : Tensor, %b : Tensor = prim::TupleUnpack(%t)"), maybe "# file.py:12:0"
_TORCHSCRIPT = re.compile(
    r"%[\w.]{1,200}(?: : [^=,%]{1,200}?)?(?:, %[\w.]{1,200}(?: : [^=,%]{1,200}?)?){0,16}"
    r" = [\w:.]{1,200}(?=\()"
)
_SOURCE_COMMENT = re.compile(r" # [^\s]{1,300}:\d{1,9}(?::\d{1,9})?")
TORCH2TRT = re.compile(r"\[[A-Z][A-Z0-9_]{0,40} #\d{1,9}\] ")
# Paddle Inference names its TensorRT layers "op_type (Output: output_var)"
_PADDLE_TRT = re.compile(r"[a-z][a-z0-9_]{0,60} \(Output: [^()\s]{1,300}\)")
_UNNAMED = re.compile(r"\(Unnamed Layer\* \d{1,9}\) \[[\w ]{1,40}\]")
# The extensions of source files named in log locations, as regex alternations (every logs
# module reads a source file with one of these two): native sources, where TensorRT, its parsers
# and the C/C++ tools raise an error ("[optimizer.cpp::computeCosts::2011]", "builder.cpp:609",
# "trt_engine_op.cc:123", glibc's "demo.c:31: f(): Assertion"), and any source, Python's too
# (a Python logger's own "logging.py:24" says who printed a message, not where it was raised).
_NATIVE_EXTENSIONS = ("cpp", "cc", "cu", "c", "hpp", "h")
NATIVE_SOURCE_EXTENSION = "(?:" + "|".join(_NATIVE_EXTENSIONS) + ")"
SOURCE_EXTENSION = "(?:" + "|".join((*_NATIVE_EXTENSIONS, "py")) + ")"
# TensorRT's error wrapper "Error Code 4: Internal Error (reason)" (a logger may print "Error
# Code: 4:"), up to its opening parenthesis: groups ``code`` and ``kind`` (the error's family,
# "Internal Error", "API Usage Error", ...). One pattern text for every module that reads it.
ERROR_CODE_WRAPPER = r"Error Code:? (?P<code>\d{1,9}): (?P<kind>[A-Za-z][\w ]{0,60}?) \("
ERROR_CODE_OPEN = re.compile(ERROR_CODE_WRAPPER)
# the reason in parentheses: "Error Code 4: Internal Error (...)", TensorRT 7's "file.cpp (114)
# - Myelin Error in addNodeToMyelinGraph: 0 (...)"
REASON_OPEN = re.compile(ERROR_CODE_WRAPPER + r"|Error in \w{1,200}: -?\d{1,9} \(")
# an API function or enum value, never a layer: IBuilder::buildSerializedNetwork, UNSUPPORTED_STATE
_API_OR_ENUM = re.compile(r"(?:nvinfer1::)?I[A-Z]\w{0,80}::|[A-Z][A-Z0-9_]{0,80}$")
_SOURCE_FILE = re.compile(rf"\.{SOURCE_EXTENSION}(?::\d+|\(\d+\))?$")  # "f.cpp(64)" too
_NUMBERISH = re.compile(r"^[+-]?(?:0x[0-9a-fA-F]+|[\d.,:x*-]+)$")  # "+0800" (a UTC offset) too
# a PyTorch module path ("backbone.layer7.0.conv1"): identifiers and indices joined by dots
_MODULE_PATH = re.compile(r"[A-Za-z_]\w{0,80}(?:\.(?:[A-Za-z_]\w{0,80}|\d{1,9})){1,32}")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_CODE_IDENTIFIER = re.compile(r"[a-z]{1,40}(?:_[a-z]{1,40}){1,8}")
_AFTER_QUOTE = frozenset(".,;:)]}'\"")
# A reason TensorRT glues to the name's colon: "conv1:kernel weights has count 0 but 9408 was
# expected" (its convolution / deconvolution weight checks); any other "a/b:qkv" stays one name
_GLUED_REASON = re.compile(r"(?:kernel|bias) weights has count\b")
_TRAILING = ".,;:'\"*`"  # and a markdown "**" / "`" the paste closed the line with


def _balanced(text: str, start: int, end: int) -> int:
    """Index just past the group opening at ``text[start]`` (one of ``([{``), or -1."""
    stack: list[str] = []
    for index in range(start, end):
        char = text[index]
        if char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in ")]}":
            if not stack or stack[-1] != char:
                return -1
            stack.pop()
            if not stack:
                return index + 1
    return -1


def _atom_end(text: str, start: int, end: int) -> int:
    """End of one name atom starting at ``start`` (== start when none)."""
    if text.startswith("%", start):
        statement = _TORCHSCRIPT.match(text, start, end)
        if statement is not None:
            closed = _balanced(text, statement.end(), end)
            if closed > 0:
                comment = _SOURCE_COMMENT.match(text, closed, end)
                return comment.end() if comment is not None else closed
    torch = TORCH2TRT.match(text, start, end)
    if torch is not None:
        # "[CONVOLUTION #1] torch.nn.Conv2d.forward(...)": the call's parentheses end it.
        opened = text.find("(", torch.end(), end)
        gap = text[torch.end() : opened] if opened > 0 else " "
        if opened > 0 and " " not in gap:
            closed = _balanced(text, opened, end)
            if closed > 0:
                return closed
        if not text[torch.end() : end].strip():
            return torch.end() - 1  # the label alone ends the line, its reason on the next
        return start
    paddle = _PADDLE_TRT.match(text, start, end)
    if paddle is not None:
        return paddle.end()
    unnamed = _UNNAMED.match(text, start, end)
    index = unnamed.end() if unnamed is not None else start  # "(Unnamed Layer* 0) [X]_output"
    while index < end:
        char = text[index]
        if char.isspace():
            break
        if char in _CLOSERS:
            closed = _balanced(text, index, end)
            if closed < 0:
                break
            index = closed
            continue
        if char in ")]}":
            break
        if char == ":" and (
            index + 1 == end or text[index + 1].isspace() or _GLUED_REASON.match(text, index + 1)
        ):
            break
        index += 1
    return index


def closing_quote(text: str, opening: int) -> int:
    """Index of the quote that closes the one at ``text[opening]`` (-1 when none): the first
    same quote followed by the end, a space or punctuation, so a quote inside a name
    (``"/model/conv_"a"_7"``, ``'/model/head's_conv'``) does not end it."""
    quote = text[opening]
    limit = min(len(text), opening + 2 + MAX_NAME_CHARS)
    close = text.find(quote, opening + 1, limit)
    while close != -1:
        following = text[close + 1 : close + 2]
        if not following or following.isspace() or following in _AFTER_QUOTE:
            return close
        close = text.find(quote, close + 1, limit)
    return -1


def is_code_identifier(name: str) -> bool:
    """A lower-case snake_case word without digits (``complex_decomposition_adapter``): the
    function or pass that prints ``NAME: ...``, when the message names its node elsewhere."""
    return _CODE_IDENTIFIER.fullmatch(name) is not None


def is_api_or_enum(name: str) -> bool:
    """True for a TensorRT API function (``IBuilder::buildSerializedNetwork``) or an enum value
    (``UNSUPPORTED_STATE``): words in name positions that name no layer."""
    return _API_OR_ENUM.match(name) is not None


def name_token(text: str, start: int, limit: int = MAX_NAME_CHARS) -> str:
    """The name that starts at ``text[start]`` ("" when none): atoms joined by `` + ``."""
    end = min(len(text), start + limit)
    position = start
    name_end = start
    while position < end:
        atom = _atom_end(text, position, end)
        if atom == position:
            break
        name_end = atom
        if text.startswith(" + ", atom) and atom + 3 < end:
            position = atom + 3
            continue
        break
    return text[start : _trimmed_end(text, start, name_end)]


def _trimmed_end(text: str, start: int, name_end: int) -> int:
    """``name_end`` moved back over a possessive ``'s`` and closing punctuation."""
    if text.startswith("'s", name_end - 2) and name_end - 2 >= start:
        name_end -= 2  # "Where_493's output can not be used as shape tensor"
    while name_end > start and text[name_end - 1] in _TRAILING:
        if text.startswith("..", name_end - 2) and name_end - 2 >= start:
            break
        name_end -= 1
    return name_end


def _name_piece(piece: str) -> bool:
    """A space-separated piece of a hierarchical name (``model/up 2/Resize``), not a word of
    the sentence, a ``(remark``, a number or a ``[E]`` / ``Error[10]`` tag: it carries one of
    the separators ``/ _ .`` of scoped names."""
    return bool(piece) and piece[0] not in "([" and any(char in "/_." for char in piece)


def spaced_name_token(text: str, start: int, limit: int = MAX_NAME_CHARS) -> str:
    """:func:`name_token`, continued over spaces while each next piece is a name piece
    (``model/up 2/Resize``); the plain token when the first piece is not a name piece either.

    Where a name may hold spaces, the sentence after it is what ends it: the caller checks that
    a ``:`` follows, that the line ends or that a prose word follows.
    """
    name = name_token(text, start, limit)
    end = start + len(name)
    if not name or not text.startswith(" ", end) or not _name_piece(name.split(" ")[-1]):
        return name
    stop = min(len(text), start + limit)
    while text.startswith(" ", end) and end + 1 < stop:
        piece_end = _atom_end(text, end + 1, stop)
        if not _name_piece(text[end + 1 : piece_end]):
            break
        end = piece_end
    return text[start : _trimmed_end(text, start, end)] if end > start + len(name) else name


def looks_like_name(name: str) -> bool:
    """A token that can be a layer name rather than a word of the sentence.

    Structured names (fused, ForeignNode, Unnamed, torch2trt) always are; a plain token must
    carry a character prose does not (``/ _ . : [ (`` or a digit) and not be a number, an
    address or a source file.
    """
    if not name or len(name) > MAX_NAME_CHARS:
        return False
    if name[0] in "{[(" or " + " in name or name.startswith("PWN(") or _TORCHSCRIPT.match(name):
        return True
    if _NUMBERISH.match(name) or _SOURCE_FILE.search(name):
        return False
    return any(char in "/_.:[(" or char.isdigit() for char in name)


# An ONNX node without a name: TensorRT names its layer after the node's first output, which
# older PyTorch exporters number ("No implementation of layer 417 obeys ...", n860). A number of
# three to nine digits standing where a subject stands is such a name; one or two digits there
# are the error numbers TensorRT's loggers print ("[E] 3: ...", "ERROR: 4: ...").
_NUMBERED = re.compile(r"[1-9]\d{2,8}")


def looks_like_numbered_name(name: str) -> bool:
    """``417``: a layer named after a numbered ONNX output (see above)."""
    return _NUMBERED.fullmatch(name) is not None


def cut_short(text: str, name: str) -> bool:
    """``name`` ends a line whose ``Error Code N: ... (`` reason never closes: the line was cut
    (a copy cut short, a search tool's excerpt), so the name may be cut too."""
    stripped = text.rstrip()
    if not name or not stripped.endswith(name):
        return False
    start = len(stripped) - len(name)
    return REASON_OPEN.search(text, max(0, start - 400), start) is not None


def looks_like_strong_name(name: str) -> bool:
    """A token no sentence word looks like: ``Reshape_3``, ``/a/b``, ``onnx::Shape_7``,
    ``backbone.layer7.0.conv1``, ``(Unnamed Layer* 7) [Shuffle]``."""
    if name.startswith("(Unnamed Layer* ") and _UNNAMED.match(name):
        return True
    if not looks_like_name(name) or name[0] in "[(":
        return False
    has_digit = any(char.isdigit() for char in name)
    return (
        "/" in name
        or "::" in name
        or ("_" in name and has_digit)
        or (has_digit and _MODULE_PATH.fullmatch(name) is not None)
    )
