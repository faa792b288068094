"""Metamorphic test of the name grammar: rename the blamed layers, read the same failures.

Every train case of ``tests/data/logs`` (never a set-aside one) and every case of the shared
corpus whose ground truth names layers is read again after each ground-truth name was replaced,
wherever it stands in the log, by an awkward but real-looking name of one kind (slashes, dots,
`` + `` fusions, ``::`` and ``:``, spaces, brackets, ``(Unnamed Layer* N)``, ``{ForeignNode[...]}``,
quotes, non-ASCII, very long). The failure table must blame exactly the renamed set, each name
with the category and fatal flag the original name had: a failure is a gap in the grammar of
where names stand, never in one log.

Kept as printed (not renamed), each for a reason:

- names whose own form is part of the message's grammar: torch2trt's ``[CONVOLUTION #1]
  torch.nn.Conv2d.forward(...)`` labels, TF-TRT's ``TRTEngineOp_N_M`` engine ops (the tool
  names them so), TorchScript statements ``%x : Tensor = aten::op(...)``, Paddle-TRT's
  ``op_type (Output: var)`` names (the scan finds such a log line by that form); TensorRT's own
  name of a constant layer, ``(Unnamed Layer* N) [Constant]``, whose form tells the layer from
  an ONNX initializer in ``X: invalid weights type of T`` (n931 vs n424);
- a name the log also prints cut off (``... for node /model.22/p`` at a line's end, a garbled
  ``... [P?)``): the cut copy cannot be renamed consistently.
- a name the log prints glued to the next word (TensorRT's ``Slice_79requires bool I/O but node
  can not be handled by Myelin``, n856): renaming only whole tokens leaves it as printed.

Left out, each for a reason (genuinely ambiguous in the message's own form):

- a numbered name (``417``) followed by prose without a colon (``(417 requires foreign node
  optimizations``): a number before a word is a count in most messages;
- a name with a space where a converter's refusal is followed by more words
  (``converter rejected node a b with dtype ...``): Torch-TensorRT's FX node names are Python
  identifiers, and nothing in the sentence says where a spaced name would end;
- a name that holds a possessive-looking ``'s`` *and* a space *and* ``":N``
  (``head's "conv":7``): ``X's`` is TensorRT's own possessive (``Where_493's output can not be
  used as shape tensor``), so ``head's "conv":7: reason`` reads as ``head``'s something. Names
  with one quote kind inside (``/model/conv_"a"_7``, ``/model/head's_conv_7``) are tested.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_cases import named_cases, read_layers

VARIANTS: dict[str, Callable[[int], str]] = {
    "slashes": lambda i: f"/model.{i}/dfl/conv/Conv",
    "dots": lambda i: f"backbone.layer{i}.0.conv1",
    "fused": lambda i: f"Conv_{i} + BatchNormalization_{i} + Relu_{i}",
    "double-colon": lambda i: f"onnx::Gather_{i}",
    "colon-inside": lambda i: f"encoder.layer.{i}/attention:qkv",
    "space": lambda i: f"model/up {i}/Resize",
    "brackets": lambda i: f"/blocks[{i}]/attn/MatMul",
    "unnamed": lambda i: f"(Unnamed Layer* {i}) [Shuffle]",
    "foreign-node": lambda i: (
        f"{{ForeignNode[/a/b_{i}...Reshape_{i} + (Unnamed Layer* 146) [Shuffle]]}}"
    ),
    "double-quote": lambda i: f'/model/conv_"a"_{i}',
    "apostrophe": lambda i: f"/model/head's_conv_{i}",
    "cyrillic": lambda i: f"/модель/слой_{i}/Conv",
    "cjk": lambda i: f"骨干网络/卷积_{i}",
    "very-long": lambda i: "/" + "/".join(f"block{k}_{i}" for k in range(120)) + "/Conv",
    "plain": lambda i: f"node_of_{1348 + i}",
    # an ONNX node without a name: TensorRT names its layer after the numbered output (n860)
    "numbered": lambda i: f"{410 + i}",
}
# torch2trt labels, TF-TRT engine ops, TorchScript statements, Paddle-TRT "op (Output: var)"
# names, TensorRT's unnamed constant layers (see the module docstring)
_OWN_FORM = re.compile(
    r"^\[[A-Z][A-Z0-9_]* #\d+\]|TRTEngineOp_|^%[\w.]+ : | \(Output: "
    r"|^\(Unnamed Layer\* \d+\) \[Constant\]$"
)
_REFUSAL_THEN_WORDS = re.compile(r"converter rejected node (?P<name>.+?) with ")


def _printed_cut(name: str, text: str) -> bool:
    """Does the log print ``name`` cut off somewhere: a line ending with a proper prefix of it
    (the rest of the line lost), or its first two thirds not followed by the rest (a garbled
    copy: "... + (Unnamed Layer* 3) [P?)")?"""
    head = name[:8]
    for line in text.splitlines():
        line = line.rstrip()
        at = line.rfind(head)
        if at >= 0 and line[at:] != name and name.startswith(line[at:]):
            return True
    long_head = name[: max(8, len(name) * 2 // 3)]
    at = text.find(long_head)
    while at >= 0:
        if not text.startswith(name, at):
            return True
        at = text.find(long_head, at + 1)
    return False


def _printed_glued(name: str, text: str) -> bool:
    """Is every copy of ``name`` in the log glued to a following word character?"""
    ends = [m.end() for m in re.finditer(re.escape(name), text)]
    return bool(ends) and all(end < len(text) and re.match(r"\w", text[end]) for end in ends)


def _renamed(text: str, mapping: dict[str, str]) -> str:
    """``text`` with each name replaced wherever it stands as a whole token (not inside a
    longer name: ``Conv_1`` in ``/a/Conv_1`` or ``Conv_12`` stays), longest names first."""
    marks = {name: f"\x00{index}\x00" for index, name in enumerate(mapping)}
    for name in sorted(mapping, key=len, reverse=True):
        tail = r"(?![\w])" if re.match(r"\w", name[-1]) else ""
        pattern = re.compile(r"(?<![\w/.])" + re.escape(name) + tail)
        text = pattern.sub(lambda _, mark=marks[name]: mark, text)
    for name, mark in marks.items():
        text = text.replace(mark, mapping[name])
    return text


def _left_out(variant: str, new_name: str, text: str) -> str:
    if variant == "numbered" and re.search(rf"(?<![\w/.]){new_name} [a-z]", text):
        return "a bare number followed by prose reads as a count ('(417 requires ...')"
    if variant == "space":
        for match in _REFUSAL_THEN_WORDS.finditer(text):
            if match.group("name") == new_name:
                return "spaced name in a converter refusal followed by more words"
    return ""


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_renamed_layers_are_read_exactly(corpus_dir: Path, variant: str) -> None:
    make = VARIANTS[variant]
    failures: list[str] = []
    checked = 0
    for case_id, path, case in named_cases(corpus_dir):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        mapping = {
            name: name
            if _OWN_FORM.search(name) or _printed_cut(name, text) or _printed_glued(name, text)
            else make(index + 7)
            for index, name in enumerate(case.names)
        }
        new_text = _renamed(text, mapping)
        if any(_left_out(variant, new, new_text) for new in mapping.values()):
            continue
        before = read_layers(text)
        after = read_layers(new_text)
        expected = {mapping[name]: before.get(name) for name in case.names}
        checked += 1
        if set(after) != set(expected):
            failures.append(
                f"{case_id}: missing {sorted(set(expected) - set(after))[:2]}, "
                f"extra {sorted(set(after) - set(expected))[:2]}"
            )
        elif any(after[new] != expected[new] for new in expected):
            failures.append(f"{case_id}: category/fatal changed {after} != {expected}")
    assert checked >= 150, checked
    assert not failures, f"{variant}: {len(failures)} cases\n" + "\n".join(failures)
