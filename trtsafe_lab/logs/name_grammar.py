"""Where a layer or tensor name can stand in a TensorRT message, and how far it runs.

TensorRT and the tools around it print names in a few grammatical positions, whatever the
message says about them:

- after ``node`` / ``layer`` in ``for node X``, ``at layer X``, ``on layer X``, ``rejected node X``
  (:data:`AFTER_WORD`), and after a ``Layer: `` / ``Node: `` label that starts the message;
- at the start of a message or of a parenthesised reason, followed by ``": "``:
  ``Error Code 4: Internal Error (/model/Concat: all concat input tensors ...)``,
  ``[E] 3: conv1: kernel weights has count 0 ...`` (:func:`leading_name`);
- DLA notices ``Splitting DLA subgraph at: X because ...``, ``Switching to GPU for layer X``;
- a tensor after ``tensor`` / ``Tensor`` (quoted or not): such names go to the ``tensors`` column,
  a tensor is not a layer (:func:`tensor_names`).

A name there is read by :func:`name_token`, which knows the shapes names take: fused names
joined by `` + ``, ``{ForeignNode[...]}`` and ``PWN(...)`` groups, ``(Unnamed Layer* 12)
[Shuffle]``, torch2trt's ``[CONVOLUTION #1] torch.nn.Conv2d.forward(...)``, ONNX names with
``::``, ``/`` and dots. It walks the text once, so every function here is linear in the line.
"""

from __future__ import annotations

import itertools
import re

MAX_NAME_CHARS = 4096  # longer "names" are not names
MAX_MATCHES = 64  # findings of one kind read from one line

AFTER_WORD = re.compile(
    # "output extent of node X", "name of the node X"; not TensorFlow's graph error "Input 0 of
    # node X was passed float from ..." (a TensorFlow node)
    r"\b(?:(?:for|at|on|in|with|from|rejected|convert|producing) (?:the )?"
    r"|(?<![Ii]nput \d )of (?:the )?)"
    r"(?:[Nn]ode|[Ll]ayer)(?::\s?| )"
)
_SPLIT_DLA = re.compile(r"Splitting DLA subgraph at: ")
# A message that starts with a label: "Layer: Where_493's output can not be used as shape tensor.",
# "Node X was already tagged"; a label anywhere: "Constant layer: X can be a duplicate of: Y",
# "Found unsupported shape-tensor producing layer:X", "trt_module_node: X does not have ..."
_LABEL = re.compile(
    r"(?:[A-Z]\w{0,60}(?:Error|Exception): )?\s{0,8}(?:(?:Layer|Node|layer|node): ?|Node (?=\S))"
)
_LABEL_WORD = re.compile(r"(?:^|_)(?:[Nn]ode|[Ll]ayer)$")  # "trt_module_node" is a label
_EXCEPTION_CLASS = re.compile(
    r"(?:[A-Za-z_]\w{0,80}(?:\.|::)){0,8}[A-Z]\w{0,80}(?:Error|Exception)$"  # Python or C++
)
# A quoted name after the noun it names: Myelin's 'Slice operation "/a/Pad_1290_slice" has ...',
# an FX graph's "placeholder 'x' has no node.meta" (an op kind first: 'rejected for operation
# "conv_act_2"' names Myelin's op, whose layers the autotuner lists apart)
_QUOTED_AFTER_NOUN = re.compile(
    r"\b(?:[A-Z]\w{0,40} (?:operation|op)|[Ll]ayer|[Nn]ode|placeholder) [\"']"
)
_MYELIN_OP_KIND = re.compile(r"\([a-z_]{1,40}:[a-z_]{1,40}\)$")
# (not a C++ scope: "[graph.cpp::nvinfer1::builder::Node::symbolicExecute::535]")
_LABEL_ANYWHERE = re.compile(r"(?<![\w.:])(?:\w{1,40}_)?(?:[Ll]ayer|[Nn]ode):(?!:)\s?(?=\S)")
# Torch-TensorRT's util::node_info: a TorchScript statement "%y : Tensor = aten::op(%x, %2)"
# (several outputs "%a : Tensor, %b : Tensor = prim::TupleUnpack(%t)"), maybe "# file.py:12:0"
_TORCHSCRIPT = re.compile(
    r"%[\w.]{1,200}(?: : [^=,%]{1,200}?)?(?:, %[\w.]{1,200}(?: : [^=,%]{1,200}?)?){0,16}"
    r" = [\w:.]{1,200}(?=\()"
)
_SOURCE_COMMENT = re.compile(r" # [^\s]{1,300}:\d{1,9}(?::\d{1,9})?")
# A framework's converter validator refusing a node, at DEBUG level: the node after "node" or
# quoted ("converter rejected node X with ...", "aten.repeat node X would ... Falling back to
# PyTorch", "deconvolution 'X' is not supported ... Falling back to PyTorch.")
REFUSAL = re.compile(r"converter rejected node |[Ff]alling back to PyTorch|will run in PyTorch")
_REFUSED_NODE = re.compile(r"\b[Nn]ode (?=\S)|'(?=[^'\s]{1,4096}')")
_TORCH2TRT = re.compile(r"\[[A-Z][A-Z0-9_]{0,40} #\d{1,9}\] ")
# Paddle Inference names its TensorRT layers "op_type (Output: output_var)"
_PADDLE_TRT = re.compile(r"[a-z][a-z0-9_]{0,60} \(Output: [^()\s]{1,300}\)")
_UNNAMED = re.compile(r"\(Unnamed Layer\* \d{1,9}\) \[[\w ]{1,40}\]")
_LOCATION = re.compile(r"\[[^\]\s]{1,300}(?:::|\.(?:cpp|cc|cu|h|hpp):)[^\]\s]{0,300}\] ")
_PROGRAM_THEN_SOURCE = re.compile(r": \S{1,300}\.(?:c|cc|cpp|cu|h|hpp|py):\d{1,9}: ")
_LOGGER_TAG = re.compile(r"\[(?:TRT|TensorRT)\] ")
_CODE_PREFIX = re.compile(r"(?:\d{1,3}: |Error\[\d{1,3}\]: )")
# the reason in parentheses: "Error Code 4: Internal Error (...)", TensorRT 7's "file.cpp (114)
# - Myelin Error in addNodeToMyelinGraph: 0 (...)"
_REASON_OPEN = re.compile(
    r"Error Code \d{1,9}: [A-Za-z][\w ]{0,60}? \(|Error in \w{1,200}: -?\d{1,9} \("
)
_INTERFACE = re.compile(r"I[A-Z][A-Za-z]{0,60}Layer ")
_THEN_WORD = re.compile(r" [a-z]{2,40}\b")
# an API function or enum value, never a layer: IBuilder::buildSerializedNetwork, UNSUPPORTED_STATE
_API_OR_ENUM = re.compile(r"(?:nvinfer1::)?I[A-Z]\w{0,80}::|[A-Z][A-Z0-9_]{0,80}$")
MAX_CLAUSES = 16  # ": " separators (and as many sentence ends) tried per line
_CLAUSE_START = re.compile(r"(?<!\.)[:.] (?=\S)")  # not the "..." of a ForeignNode range
# "tensor X", "Tensor 'X'"; a network input is a tensor too ("UFFParser: Failed to parseInput
# for node input_1": the UFF INPUT node becomes the network's input tensor)
_TENSOR = re.compile(
    r"\b[Tt]ensors?:? (?:named |with name )?(?=['\"(]|[^\s'\"]{0,4096}[/_.:\d])|Input for node "
)
_SOURCE_FILE = re.compile(r"\.(?:cpp|cc|cu|h|hpp|py)(?::\d+|\(\d+\))?$")  # "f.cpp(64)" too
_NUMBERISH = re.compile(r"^[+-]?(?:0x[0-9a-fA-F]+|[\d.,:x*-]+)$")  # "+0800" (a UTC offset) too
# a PyTorch module path ("backbone.layer7.0.conv1"): identifiers and indices joined by dots
_MODULE_PATH = re.compile(r"[A-Za-z_]\w{0,80}(?:\.(?:[A-Za-z_]\w{0,80}|\d{1,9})){1,32}")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_CODE_IDENTIFIER = re.compile(r"[a-z]{1,40}(?:_[a-z]{1,40}){1,8}")
_AFTER_QUOTE = frozenset(".,;:)]}'\"")
# A reason TensorRT glues to the name's colon: "conv1:kernel weights has count 0 but 9408 was
# expected" (its convolution / deconvolution weight checks); any other "a/b:qkv" stays one name
_GLUED_REASON = re.compile(r"(?:kernel|bias) weights has count\b")
_TRAILING = ".,;:'\""


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
    torch = _TORCH2TRT.match(text, start, end)
    if torch is not None:
        # "[CONVOLUTION #1] torch.nn.Conv2d.forward(...)": the call's parentheses end it.
        opened = text.find("(", torch.end(), end)
        gap = text[torch.end() : opened] if opened > 0 else " "
        if opened > 0 and " " not in gap:
            closed = _balanced(text, opened, end)
            if closed > 0:
                return closed
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


def cut_short(text: str, name: str) -> bool:
    """``name`` ends a line whose ``Error Code N: ... (`` reason never closes: the line was cut
    (a copy cut short, a search tool's excerpt), so the name may be cut too."""
    stripped = text.rstrip()
    if not name or not stripped.endswith(name):
        return False
    start = len(stripped) - len(name)
    return _REASON_OPEN.search(text, max(0, start - 400), start) is not None


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


def _leading_at(text: str, start: int, *, strong_then_word: bool) -> str:
    """The name at ``start`` when it is followed by ``:`` (a ``NAME: reason`` clause).

    With ``strong_then_word``, a strong name followed by a lower-case word also counts
    (``(ScatterND_213 requires foreign node optimizations ...)``).
    """
    if text.endswith("Assertion failed: ", 0, start):
        return ""  # a C++ condition ("!attrs.count("reduction"): Attribute ..."), not a name
    location = _LOCATION.match(text, start)
    if location is not None:
        start = location.end()
    tag = _LOGGER_TAG.match(text, start)
    if tag is not None:
        start = tag.end()  # an app logger's "[TRT] " before TensorRT's own message
    interface = _INTERFACE.match(text, start)
    if interface is not None:
        start = interface.end()  # "IShuffleLayer Reshape_966: ..."
    name = name_token(text, start)
    after = start + len(name)
    if not name or text.startswith(': "', after):  # protobuf text ``name: "x"`` is no name
        return ""
    if is_api_or_enum(name):  # "IBuilder::buildSerializedNetwork: ...", "UNSUPPORTED_STATE:"
        return ""
    if _LABEL_WORD.search(name) or _EXCEPTION_CLASS.match(name) or name.endswith("()"):
        # "trt_module_node: X ...", "polygraphy.exception.PolygraphyException: ...", pybind11's
        # "TypeError: deserialize_cuda_engine(): incompatible function arguments"
        return ""
    if text.startswith(": invalid weights", after):
        return ""  # "onnx::QuantizeLinear_1205: invalid weights type of Int8": an initializer
    if _PROGRAM_THEN_SOURCE.match(text, after):
        return ""  # glibc's assert: "yolov9: /src/demo.cpp:31: void f(): Assertion `x' failed."
    if text.startswith(":", after) and looks_like_name(name):
        return name
    if after == len(text.rstrip()) and _TORCH2TRT.fullmatch(name + " "):
        return name  # torch2trt prints "[CONCATENATION #13]" alone, the reason on the next line
    if strong_then_word and _THEN_WORD.match(text, after) and looks_like_strong_name(name):
        return name
    spaced = spaced_name_token(text, start)  # "model/up 2/Resize: ...": the colon ends it
    after = start + len(spaced)
    if spaced == name:
        return ""
    if text.startswith(":", after):
        return spaced
    strong = any(looks_like_strong_name(piece) for piece in spaced.split(" "))
    return spaced if strong_then_word and _THEN_WORD.match(text, after) and strong else ""


def leading_name(text: str) -> str:
    """``X`` of ``[N: ][location ]X: reason``, ``... (X: reason)`` or ``prefix: X: reason``.

    Tried at the message start, at the start of an ``Error Code N: Category (`` reason, and
    after each of the first ``": "`` separators (``kOPT values ... constraints: X: ISlice...``)
    and sentence ends (``... condition '==' violated. Concat_351: dimensions not compatible``).
    """
    start = 0
    code = _CODE_PREFIX.match(text)
    if code is not None:
        start = code.end()
    found = _leading_at(text, start, strong_then_word=True)
    if found:
        return found
    opened = _REASON_OPEN.search(text)
    if opened is not None:
        found = _leading_at(text, opened.end(), strong_then_word=True)
        if found:
            return found
    for clause in itertools.islice(_CLAUSE_START.finditer(text, start), 2 * MAX_CLAUSES):
        found = _leading_at(text, clause.end(), strong_then_word=False)
        if found:
            return found
    return ""


def _delimited_name(text: str, start: int) -> str:
    """The name at ``start``: :func:`spaced_name_token` where the sentence ends it (the line
    ends, ``:``, a possessive ``'s`` or a prose word follows: "No implementation of layer
    model/up 2/Resize obeys ..."), else :func:`name_token`."""
    name = name_token(text, start)
    spaced = spaced_name_token(text, start)
    if spaced == name:
        return name
    after = start + len(spaced)
    rest = text[after:]
    ended = rest.startswith((":", "'s ")) or not rest.strip(" .)")
    return spaced if ended or _THEN_WORD.match(text, after) else name


def positional_names(text: str) -> list[str]:
    """Names standing after ``node`` / ``layer``, after a leading ``Layer:`` label and in DLA
    subgraph splits."""
    found: list[str] = []
    label = _LABEL.match(text)
    if label is not None:
        name = _delimited_name(text, label.end())
        if looks_like_name(name):
            found.append(name)
    if "ode:" in text or "ayer:" in text:
        for match in itertools.islice(_LABEL_ANYWHERE.finditer(text), MAX_MATCHES):
            name = _delimited_name(text, match.end())
            if looks_like_name(name) and name not in found:
                found.append(name)
    if "ode" in text or "ayer" in text:
        for match in itertools.islice(AFTER_WORD.finditer(text), MAX_MATCHES):
            name = _delimited_name(text, match.end())
            if name.startswith("{{"):
                continue  # TensorFlow's "{{node X}}": a TensorFlow node, not a TensorRT layer
            at_end = match.end() + len(name) >= len(text.rstrip(". "))
            if looks_like_name(name) or (name and at_end):
                found.append(name)
    if '"' in text or "'" in text:
        for match in itertools.islice(_QUOTED_AFTER_NOUN.finditer(text), MAX_MATCHES):
            close = closing_quote(text, match.end() - 1)
            name = text[match.end() : close] if close > 0 else ""
            kind = _MYELIN_OP_KIND.search(name)
            if kind is not None and kind.start() > 0:
                name = name[: kind.start()]  # "In op 'X(u_pw:move)'": Myelin's op kind follows
            if looks_like_name(name) and name not in found:
                found.append(name)
    if "DLA subgraph" in text:
        for match in itertools.islice(_SPLIT_DLA.finditer(text), MAX_MATCHES):
            name = name_token(text, match.end())
            if name:
                found.append(name)
    return found


def refused_names(text: str) -> list[str]:
    """The nodes a converter validator's refusal names (``node X`` or a quoted ``'X'``)."""
    found: list[str] = []
    if REFUSAL.search(text) is None:
        return found
    for match in itertools.islice(_REFUSED_NODE.finditer(text), MAX_MATCHES):
        if text.startswith("'", match.start()):
            close = closing_quote(text, match.start())
            name = text[match.end() : close] if close > 0 else ""
        else:
            name = name_token(text, match.end())
        if looks_like_name(name) and name not in found:
            found.append(name)
    return found


def tensor_names(text: str) -> list[str]:
    """Tensor names a message mentions (``tensor X``, ``Tensor 'X'``)."""
    found: list[str] = []
    if "ensor" not in text and "Input for node" not in text:
        return found
    for match in itertools.islice(_TENSOR.finditer(text), MAX_MATCHES):
        start = match.end()
        if text[start] in "'\"":
            close = closing_quote(text, start)
            name = text[start + 1 : close] if close > 0 else ""
        else:
            name = name_token(text, start)
        if name and (looks_like_name(name) or text[start] in "'\""):
            found.append(name)
    return found
