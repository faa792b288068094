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

A name there is read by :mod:`~trtsafe_lab.logs.name_tokens` (how far a name runs, what a name
looks like). Every function here is linear in the line.
"""

from __future__ import annotations

import itertools
import re

from trtsafe_lab.logs.name_tokens import (
    MAX_MATCHES,
    MAX_NAME_CHARS,
    REASON_OPEN,
    SOURCE_EXTENSION,
    TORCH2TRT,
    closing_quote,
    is_api_or_enum,
    looks_like_name,
    looks_like_numbered_name,
    looks_like_strong_name,
    name_token,
    spaced_name_token,
)

AFTER_WORD = re.compile(
    # "output extent of node X", "name of the node X"; not TensorFlow's graph error "Input 0 of
    # node X was passed float from ..." (a TensorFlow node)
    # "plugin node X requires N bytes of scratch space" (the node's kind before it)
    # "for DistCollective node X" (the node's kind before it, capitalised)
    r"\b(?:(?:for|at|on|in|with|from|rejected|convert|producing|plugin) (?:the )?"
    r"(?:[A-Z][A-Za-z]{1,40} )?"
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
# A framework's converter validator refusing a node, at DEBUG level: the node after "node" or
# quoted ("converter rejected node X with ...", "aten.repeat node X would ... Falling back to
# PyTorch", "deconvolution 'X' is not supported ... Falling back to PyTorch.")
# TF-TRT's segmenter: "Not a TF-TRT candidate, (Op type: T), (Op name: X), (Reason: R)"
# (tensorflow/compiler/tf2tensorrt/segment/segment.cc, VLOG(1)): X stays in TensorFlow.
_TF_TRT_CANDIDATE = r"(?:Not a|Blacklisted as|Denylisted as) TF-TRT candidate, "
REFUSAL = re.compile(
    r"converter rejected node |[Ff]alling back to PyTorch|will run in PyTorch|" + _TF_TRT_CANDIDATE
)
_REFUSED_NODE = re.compile(r"\b[Nn]ode (?=\S)|'(?=[^'\s]{1,4096}')")
_NOT_REFUSED = "excluded by segmenter option"
_TF_TRT_REFUSED = re.compile(_TF_TRT_CANDIDATE + r"\(Op type: [^()\s]{0,200}\), \(Op name: ")
_LOCATION = re.compile(rf"\[[^\]\s]{{1,300}}(?:::|\.{SOURCE_EXTENSION}:)[^\]\s]{{0,300}}\] ")
_PROGRAM_THEN_SOURCE = re.compile(rf": \S{{1,300}}\.{SOURCE_EXTENSION}:\d{{1,9}}: ")
_LOGGER_TAG = re.compile(r"\[(?:TRT|TensorRT)\] ")
_CODE_PREFIX = re.compile(r"(?:\d{1,2}: |Error\[\d{1,3}\]: )")  # TensorRT's codes: 0-10
_INTERFACE = re.compile(r"I[A-Z][A-Za-z]{0,60}Layer ")
# TensorRT's template glues the node to the verb: "Error Code 2: Internal Error (Slice_79requires
# bool I/O but node can not be handled by Myelin.)" (myelinBuilderUtils.cpp)
_GLUED_MYELIN = "requires bool I/O but node can not be handled by Myelin"
# An app's "key: value" print ("is_p: 2 gd: 0.33 gw: 0.5", "max_workspace_size: 1073741824",
# "input_1: [1, 3, 224, 224]", "use_fp16: True"): a subject whose reason is a bare value (then
# the line ends, a separator or the next key follows). TensorRT's reasons are sentences.
_VALUE_ONLY = re.compile(
    r": ?(?:-?\d[\d.]{0,40}(?:e-?\d{1,3})?|True|False|None|\[[\d, x-]{0,200}\]"
    r"|\([\d, ]{0,200}\))(?=\s*$|[,;] |\s{1,8}[A-Za-z_][\w.-]{0,40}: )"
)
_THEN_WORD = re.compile(r" [a-z]{2,40}\b")
# An op kind's limit ("upsample_linear1d only supports align_corner with TensorRT <= 7.0.",
# Torch-TensorRT's interpolate.cpp): a lower-case snake_case op name, no scope, no capital; a
# layer's own limit names the layer ("conv_1/Conv2D only supports 2D inputs")
_OP_KIND = re.compile(r"[a-z][a-z0-9]{0,40}(?:_[a-z][a-z0-9]{0,40}){1,8}")
_SUBJECT_VERB = re.compile(r" (?:has|have|is|does|cannot|can not|must|requires)\b")
# what follows a numbered subject: a reason in words ("417: all concat input tensors",
# "417:kernel weights has count", "417: K exceeds ..."), not an op listing ("364: Transpose ->
# []" under TensorRT 4's error), nor Myelin's op listing "1379: corrltn: T'..." (index, op kind)
_REASON_AFTER = re.compile(r": ?(?![A-Z]\w{0,60} -> |[a-z_]{1,40}: )[A-Za-z]")
MAX_CLAUSES = 16  # ": " separators (and as many sentence ends) tried per line
_CLAUSE_START = re.compile(r"(?<!\.)[:.] (?=\S)")  # not the "..." of a ForeignNode range
# "tensor X", "Tensor 'X'"; a network input is a tensor too ("UFFParser: Failed to parseInput
# for node input_1": the UFF INPUT node becomes the network's input tensor)
_TENSOR = re.compile(
    r"\b[Tt]ensors?:? (?:named |with name )?(?=['\"`(]|[^\s'\"]{0,4096}[/_.:\d])|Input for node "
    # Polygraphy's "For input: T, failed to ...", "Errors detected in output: T", "Input tensor: T
    # | ..." (a bracket or digit there is a shape or a value, no tensor)
    r"|\b(?:[Ii]nput|[Oo]utput)(?: tensor)?: (?![\[(\d])"
    # Torch-TensorRT's runtime: "Unable to determine binding index for input T", "Failed to set
    # output allocator for T"
    r"|\bbinding index for (?:input|output) |\boutput allocator for "
    # TensorRT-LLM's runtime: "Input shape not specified: T"
    r"|\bshape not specified: "
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
    if text.startswith(": [ONNXRuntimeError]", after):
        return ""  # ONNX Runtime's exception class ("onnxruntime.capi...pybind11_state.Fail")
    if _LABEL_WORD.search(name) or _EXCEPTION_CLASS.match(name) or name.endswith("()"):
        # "trt_module_node: X ...", "polygraphy.exception.PolygraphyException: ...", pybind11's
        # "TypeError: deserialize_cuda_engine(): incompatible function arguments"
        return ""
    if text.startswith(": invalid weights", after) and not name.startswith("(Unnamed Layer* "):
        # "onnx::QuantizeLinear_1205: invalid weights type of Int8": the initializer (n424);
        # TensorRT's own "(Unnamed Layer* 154) [Constant]: invalid weights type of Bool" names
        # the constant layer that holds them (n931)
        return ""
    if _PROGRAM_THEN_SOURCE.match(text, after):
        return ""  # glibc's assert: "yolov9: /src/demo.cpp:31: void f(): Assertion `x' failed."
    if _VALUE_ONLY.match(text, after):
        return ""  # an app's "key: value" print, no layer's reason
    if text.startswith(":", after) and (
        looks_like_name(name)
        or (looks_like_numbered_name(name) and _REASON_AFTER.match(text, after) is not None)
    ):
        return name
    if after == len(text.rstrip()) and TORCH2TRT.fullmatch(name + " "):
        return name  # torch2trt prints "[CONCATENATION #13]" alone, the reason on the next line
    if name.endswith("requires") and text.startswith(_GLUED_MYELIN, after - len("requires")):
        return name[: -len("requires")]  # TensorRT prints no space before "requires" (n856)
    if (
        strong_then_word
        and _THEN_WORD.match(text, after)
        and looks_like_strong_name(name)
        and not (text.startswith(" only supports", after) and _OP_KIND.fullmatch(name))
    ):
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
    opened = REASON_OPEN.search(text)
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
    # (Polygraphy separates a subject from its reason with " | ": "Layer: X | Tactic in ...")
    ended = rest.startswith((":", "'s ", " | ")) or not rest.strip(" .)")
    return spaced if ended or _THEN_WORD.match(text, after) else name


def positional_names(text: str) -> list[str]:
    """Names standing after ``node`` / ``layer``, after a leading ``Layer:`` label and in DLA
    subgraph splits."""
    found: list[str] = []
    label = _LABEL.match(text)
    if label is not None:
        name = _delimited_name(text, label.end())
        if looks_like_name(name) or looks_like_numbered_name(name):
            found.append(name)
    if "ode:" in text or "ayer:" in text:
        for match in itertools.islice(_LABEL_ANYWHERE.finditer(text), MAX_MATCHES):
            if text.endswith("fused ", 0, match.start()):
                # ONNX Runtime's partition: "TensorRT EP could not build engine for fused node:
                # TensorrtExecutionProvider_TRTKernel_graph_..." (the subgraph it handed over)
                continue
            name = _delimited_name(text, match.end())
            if looks_like_name(name) and name not in found:
                found.append(name)
    if "ode" in text or "ayer" in text:
        for match in itertools.islice(AFTER_WORD.finditer(text), MAX_MATCHES):
            name = _delimited_name(text, match.end())
            if name.startswith("{{"):
                continue  # TensorFlow's "{{node X}}": a TensorFlow node, not a TensorRT layer
            at_end = match.end() + len(name) >= len(text.rstrip(". "))
            if looks_like_name(name) or looks_like_numbered_name(name) or (name and at_end):
                found.append(name)
    if '"' in text or "'" in text:
        for match in itertools.islice(_QUOTED_AFTER_NOUN.finditer(text), MAX_MATCHES):
            close = closing_quote(text, match.end() - 1)
            name = text[match.end() : close] if close > 0 else ""
            kind = _MYELIN_OP_KIND.search(name)
            if kind is not None and kind.start() > 0:
                name = name[: kind.start()]  # "In op 'X(u_pw:move)'": Myelin's op kind follows
            named = looks_like_name(name) or looks_like_numbered_name(name)
            if named and name not in found:
                found.append(name)
    if text.startswith("Layer ") and not text.startswith("Layer: "):
        # trtexec's "Layer X has N outputs but M output types are given ..." (sampleEngines.cpp)
        name = _delimited_name(text, len("Layer "))
        after = len("Layer ") + len(name)
        if looks_like_name(name) and _SUBJECT_VERB.match(text, after) and name not in found:
            found.append(name)
    if "DLA subgraph" in text:
        for match in itertools.islice(_SPLIT_DLA.finditer(text), MAX_MATCHES):
            name = name_token(text, match.end())
            if name:
                found.append(name)
    return found


def refused_names(text: str) -> list[str]:
    """The nodes a converter validator's refusal names (``node X``, a quoted ``'X'``, TF-TRT's
    ``(Op name: X)``: that label says X is a node's name, so a plain word counts)."""
    found: list[str] = []
    if REFUSAL.search(text) is None:
        return found
    if "TF-TRT candidate" in text:  # the reason after the name may quote other words
        for match in itertools.islice(_TF_TRT_REFUSED.finditer(text), MAX_MATCHES):
            # the template's "), (Reason: " ends the name (which may hold spaces)
            end = text.find("), (Reason: ", match.end(), match.end() + MAX_NAME_CHARS)
            if end > 0 and text.startswith(_NOT_REFUSED, end + len("), (Reason: ")):
                continue  # the graph's own input or output node, no conversion was tried
            name = text[match.end() : end] if end > 0 else name_token(text, match.end())
            if name and name not in found:
                found.append(name)
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


# Reasons whose subject is a tensor, not a layer: the shape machine's check of a tensor's element
# count ("Error Code 7: Internal Error (X_output_0: tensor volume exceeds 2147483647, ...)") and
# network validation's checks of a network input against the optimization profile ("(input_1:
# for dimension number 1 in profile 0 does not match network definition ...)", "(images: kMIN
# dimensions in profile 0 are [1,3,640,640] but input has static dimensions ...)", "(input:
# dynamic input is missing dimensions in profile 0.)", "(x: network input that is shape tensor
# must have type Int32)", "(2B: Input dimensions with this name are inconsistent.)")
_TENSOR_REASON = re.compile(
    r": (?:tensor volume exceeds |for dimension number \d|k(?:MIN|OPT|MAX) dimensions in profile "
    r"|dynamic input is missing dimensions|network input that is |Input dimensions with this name"
    # the UFF parser's check of an input's registered dimensions ("UFFParser: Parser error:
    # input_2: Invalid number of Dimensions 0": a graph input, which becomes a network input)
    r"|Invalid number of Dimensions "
    # TensorRT-LLM's runtime checks of an engine I/O tensor (tllmRuntime.cpp: "T: expected type X,
    # provided type Y", "T: expected N dims, provided M dims", "T: expected dim[0] = 1, ...")
    r"|expected (?:type |dim\[|-?\d{1,9} dims, provided))"
)


def tensor_names(text: str) -> list[str]:
    """Tensor names a message mentions (``tensor X``, ``Tensor 'X'``, the subject of a reason
    about a tensor: ``X: tensor volume exceeds N``, ``X: kMIN dimensions in profile 0 ...``)."""
    found: list[str] = []
    reason = _TENSOR_REASON.search(text) if ": " in text else None
    if reason is not None:
        subject = leading_name(text)
        if not (subject and text.startswith(subject, reason.start() - len(subject))):
            # the clause before the reason ("Assertion failed: T: expected type ...", where
            # a C++ condition may stand as well: only a token shaped like a name counts)
            before = text[max(0, reason.start() - MAX_NAME_CHARS) : reason.start()]
            subject = before[before.rfind(": ") + 2 :] if ": " in before else before
            subject = subject if looks_like_name(subject) and " " not in subject else ""
        if subject:
            found.append(subject)
    if ("ensor" not in text and "Input for node" not in text and "put: " not in text
            and " for " not in text and "not specified: " not in text):
        return found  # (each _TENSOR alternative holds one of these literals)
    for match in itertools.islice(_TENSOR.finditer(text), MAX_MATCHES):
        start = match.end()
        if start >= len(text):
            continue
        if text[start] in "'\"`":
            close = closing_quote(text, start)
            name = text[start + 1 : close] if close > 0 else ""
        else:
            name = name_token(text, start)
        if name and (looks_like_name(name) or text[start] in "'\"`"):
            found.append(name)
    return found
