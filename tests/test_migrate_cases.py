"""Small cases for the migration checker: precision traps, front-end details, bad files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trtsafe_lab.migrate import check_paths
from trtsafe_lab.migrate.cmake import analyse_cmake
from trtsafe_lab.migrate.makefile import analyse_makefile, analyse_shell
from trtsafe_lab.migrate.python_ast import analyse_python
from trtsafe_lab.migrate.shell import parse_shell


def rules_at(tmp_path: Path, name: str, text: str | bytes) -> list[tuple[int, str]]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return [(f.line, f.rule) for f in check_paths([path])]


# --- shell front end -------------------------------------------------------------------------


def test_shell_words_keep_lines_through_continuations_and_variables() -> None:
    text = 'F="--fp16"\ntrtexec --onnx=a.onnx \\\n  $F \\\n  --int8\n'
    (argv,) = parse_shell(text)
    assert [(w.text, w.line) for w in argv] == [
        ("trtexec", 2),
        ("--onnx=a.onnx", 2),
        ("--fp16", 1),
        ("--int8", 4),
    ]
    assert argv[2].site == 3  # used on line 3, defined on line 1


@pytest.mark.parametrize(
    "script",
    [
        'echo "trtexec --fp16 is gone in 11.x"\n',
        "# trtexec --restricted --fp16\n",
        "polygraphy run model.onnx --trt --fp16 --int8\n",
        "trtexec_safe --loadEngine=a.engine --loadEngineSo=/opt/a.engine.so --noCudaGraph\n",
        "trtexec --safe --saveEngine=a.engine --remoteAutoTuningConfig=$REMOTE_CONFIG\n",
        "trtexec --safe --saveEngine=a.engine --saveEngineSo=a.engine.so\n",
        "cat <<EOF > notes.txt\ntrtexec --fp16 --restricted\nEOF\n",
    ],
)
def test_shell_precision_traps_give_no_finding(script: str) -> None:
    assert analyse_shell(script, "s.sh").findings == []


def test_shell_wrappers_and_remote_commands_are_seen() -> None:
    facts = analyse_shell(
        "sudo -E timeout 600 trtexec --fp16\nadb shell 'trtexec_safe --useCudaGraph'\n", "s.sh"
    )
    assert [(f.line, f.rule) for f in facts.findings] == [
        (1, "precision-flags-removed-11x"),
        (2, "no-op-flag"),
    ]


def test_ship_step_with_companion_in_a_later_command_is_fine(tmp_path: Path) -> None:
    script = (
        "trtexec --safe --onnx=m.onnx --saveEngine=out/m.engine\n"
        "cp out/m.engine /deploy/\n"
        "cp out/m.engine.so /deploy/\n"
        "rsync -a build/*.engine build/*.engine.so target:/opt/engines/\n"
    )
    assert rules_at(tmp_path, "ship.sh", script) == []


def test_declared_companion_name_counts_as_shipped(tmp_path: Path) -> None:
    script = (
        "trtexec --safe --saveEngine=out/m.engine --saveEngineSo=out/libm_companion.so\n"
        "install -m 0644 out/m.engine out/libm_companion.so /opt/app/\n"
    )
    assert rules_at(tmp_path, "ship.sh", script) == []


def test_engine_shipped_without_safety_evidence_is_not_a_safe_engine(tmp_path: Path) -> None:
    assert rules_at(tmp_path, "ship.sh", "cp build/resnet.engine /deploy/\n") == []
    assert rules_at(tmp_path, "ship_safe.sh", "cp build/resnet_safe.engine /deploy/\n") == [
        (1, "companion-so-not-shipped")
    ]


def test_tar_extract_is_not_packaging(tmp_path: Path) -> None:
    script = "trtexec --safe --saveEngine=a.engine\ntar -xzf engines.tgz a.engine\n"
    assert rules_at(tmp_path, "x.sh", script) == []


# --- Makefile / CMake / YAML / Python --------------------------------------------------------


def test_makefile_automatic_variables_name_the_engine() -> None:
    text = (
        "out/m.engine: m.onnx\n"
        "\ttrtexec --safe --onnx=$< --saveEngine=$@\n"
        "deploy: out/m.engine\n"
        "\tcp out/m.engine /opt/\n"
    )
    facts = analyse_makefile(text, "Makefile")
    assert facts.companions == {"out/m.engine": "out/m.engine.so"}
    assert [s.line for s in facts.ship_steps] == [4]


def test_cmake_lexer_handles_brackets_quotes_and_comments() -> None:
    text = (
        "#[[ trtexec --fp16 in a block comment ]]\n"
        'message(STATUS "trtexec --restricted is removed")\n'
        "execute_process(COMMAND trtexec [=[--int8]=] # trailing comment\n"
        '  "--onnx=a b.onnx")\n'
    )
    assert [(f.line, f.rule) for f in analyse_cmake(text, "x.cmake").findings] == [
        (3, "precision-flags-removed-11x")
    ]


def test_python_strings_and_docstrings_are_not_commands() -> None:
    text = '"""Run trtexec --fp16 --restricted by hand."""\nHELP = "trtexec --int8"\nprint(HELP)\n'
    assert analyse_python(text, "x.py").findings == []


def test_python_shell_string_and_shlex_split_are_checked() -> None:
    text = (
        "import shlex, subprocess\n"
        'subprocess.run(shlex.split("trtexec --onnx=a.onnx --best"))\n'
        'subprocess.check_call("trtexec_safe --loadEngine=a.engine --separateProfileRun",'
        " shell=True)\n"
    )
    assert [(f.line, f.rule) for f in analyse_python(text, "x.py").findings] == [
        (2, "precision-flags-removed-11x"),
        (3, "no-op-flag"),
    ]


def test_cpp_comments_and_strings_are_not_code(tmp_path: Path) -> None:
    text = (
        "// config->setFlag(BuilderFlag::kSAFETY_SCOPE); createTRTGraph(g, b, n, rec);\n"
        'char const* kHelp = "kSAFETY_SCOPE and isNetworkSupported are 10.x";\n'
        "int main() { return 0; }\n"
    )
    assert rules_at(tmp_path, "notes.cpp", text) == []


def test_cpp_zero_aux_streams_evidence_suppresses_the_aux_rule(tmp_path: Path) -> None:
    text = (
        "// Engines are built with --maxAuxStreams=0 (single stream).\n"
        "void run(nvinfer2::safe::ITRTGraph* g, cudaStream_t s)"
        " { g->executeAsync(s); g->sync(); }\n"
    )
    assert rules_at(tmp_path, "run.cpp", text) == []
    assert rules_at(tmp_path, "run2.cpp", text.split("\n", 1)[1]) == [
        (1, "aux-streams-unregistered")
    ]


def test_cpp_registration_after_execute_is_flagged(tmp_path: Path) -> None:
    text = (
        "void run(nvinfer2::safe::ITRTGraph* g, cudaStream_t s, cudaStream_t* aux, int n) {\n"
        "    g->executeAsync(s);\n"
        "    g->setAuxStreams(aux, n);\n"
        "    g->sync();\n"
        "}\n"
    )
    assert rules_at(tmp_path, "late.cpp", text) == [(2, "aux-streams-unregistered")]


def test_cpp_companion_from_environment_is_not_judged(tmp_path: Path) -> None:
    text = (
        "void f(char const* blob, long n, nvinfer2::safe::ISafeRecorder& recorder) {\n"
        "    nvinfer2::safe::ITRTGraph* g{};\n"
        '    char const* so = std::getenv("PERCEPTION_COMPANION_SO");\n'
        "    nvinfer2::safe::createTRTGraph(g, blob, n, so, recorder, true, nullptr);\n"
        "}\n"
    )
    assert rules_at(tmp_path, "env.cpp", text) == []


# --- files that cannot be read or parsed -----------------------------------------------------


def test_binary_file_is_reported_unreadable(tmp_path: Path) -> None:
    assert rules_at(tmp_path, "model.cpp", b"\x7fELF\x00\x00\x01") == [(0, "file-unreadable")]


def test_non_utf8_file_is_reported_unreadable(tmp_path: Path) -> None:
    assert rules_at(tmp_path, "build.sh", b"echo ok\n\xff\xfe trtexec\n") == [
        (2, "file-unreadable")
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files without read permission")
def test_permission_denied_is_reported_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "secret.sh"
    path.write_text("trtexec --fp16\n")
    path.chmod(0)
    assert [(f.rule) for f in check_paths([path])] == ["file-unreadable"]


def test_folder_named_like_a_script_is_walked_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "looks_like_a_file.sh"
    folder.mkdir()
    (folder / "inner.sh").write_text("trtexec --best\n")
    assert [f.rule for f in check_paths([tmp_path])] == ["precision-flags-removed-11x"]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("bad.py", "def f(:\n    pass\n", 1),
        ("ci.yml", "jobs:\n  build:\n    run: [unclosed\n", 4),
        ("CMakeLists.txt", "project(x)\nadd_custom_command(COMMAND trtexec\n", 3),
        ("broken.cpp", "int main( { createTRTGraph(g, b, n, rec); \n", 1),
    ],
)
def test_unparsable_files_are_reported_not_crashed_on(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    found = rules_at(tmp_path, name, text)
    assert "file-unparsable" in {rule for _, rule in found}, found
    assert min(n for n, rule in found if rule == "file-unparsable") >= 1


def test_broken_cpp_is_still_checked_where_it_parses(tmp_path: Path) -> None:
    text = "int main( {\n}\nvoid f() { createTRTGraph(g, b, n, recorder); }\n"
    found = rules_at(tmp_path, "half.cpp", text)
    assert (3, "companion-so-missing") in found
    assert any(rule == "file-unparsable" for _, rule in found)


def test_a_file_that_raises_on_read_is_reported(tmp_path: Path) -> None:
    from trtsafe_lab.migrate.check import analyse_file

    folder = tmp_path / "build.sh"
    folder.mkdir()
    (finding,) = analyse_file(folder).findings
    assert finding.rule == "file-unreadable"
    assert "not a regular file" in finding.message


def test_cpp_11x_shapes_seen_in_public_samples_give_no_finding(tmp_path: Path) -> None:
    # The call shapes of NVIDIA's 11.x safety samples (written here, not copied): an optional
    # companion path, a helper that registers aux streams, a clone per thread.
    text = (
        "void run(std::vector<char> const& blob, std::string const& engine, Recorder& rec) {\n"
        "    std::vector<nvinfer2::safe::ITRTGraph*> graphs(2);\n"
        "    auto const soPath = resolveCompanion(engine);\n"
        "    SAFE_API_CALL(nvinfer2::safe::createTRTGraph(graphs[0], blob.data(), blob.size(),\n"
        "        soPath ? soPath->c_str() : nullptr, rec, true), rec);\n"
        "    auto keep = common::setUpAuxStreamsOn(*graphs[0], rec);\n"
        "    SAFE_API_CALL(graphs[0]->executeAsync(stream), rec);\n"
        "    SAFE_API_CALL(graphs[0]->sync(), rec);\n"
        "    CUDA_CHECK(cudaStreamDestroy(stream));\n"
        "}\n"
    )
    assert rules_at(tmp_path, "sample11.cpp", text) == []


@pytest.mark.parametrize(
    "call",
    [
        "createTRTGraph(g, blob.data(), size, *recorders[0], true)",
        "createTRTGraph(g, engineFile.data(), engineFileSize, g_recorder, true, nullptr)",
        "createTRTGraph(g, b.data(), b.size(), *recs[0], !args.useScratch, &getAllocator())",
        "createTRTGraph(g, b.data(), b.size(), nullptr, rec, true, nullptr)",
    ],
)
def test_cpp_10x_create_graph_shapes_are_missing_the_companion(tmp_path: Path, call: str) -> None:
    text = f"void f() {{\n    {call};\n}}\n"
    assert rules_at(tmp_path, "create.cpp", text) == [(2, "companion-so-missing")]


def test_self_referencing_variables_do_not_blow_up() -> None:
    text = "".join(f"set(LIBS ${{LIBS}} lib{i})\n" for i in range(60))
    text += "execute_process(COMMAND trtexec ${LIBS} --int8)\n"
    facts = analyse_cmake(text, "CMakeLists.txt")
    assert [(f.line, f.rule) for f in facts.findings] == [(61, "precision-flags-removed-11x")]
    shell = 'FLAGS=--safe\nFLAGS="$FLAGS $FLAGS --fp16"\n' * 40 + "trtexec $FLAGS\n"
    assert {f.rule for f in analyse_shell(shell, "s.sh").findings} == {
        "precision-flags-removed-11x"
    }


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"#!/usr/bin/env bash\n", "shell"),
        (b"#!/bin/sh -e\n", "shell"),
        (b"#!/usr/bin/env python3\n", "python"),
        (b"#!/usr/bin/perl\n", None),
        (b"#!/usr/bin/fish\n", None),
        (b"plain text\n", None),
    ],
)
def test_extensionless_files_are_recognised_by_their_shebang(head: bytes, kind: str | None) -> None:
    from trtsafe_lab.migrate.walker import file_kind

    assert file_kind(Path("tools/build_engines"), head) == kind


def test_other_ci_dialects_are_read(tmp_path: Path) -> None:
    azure = "steps:\n  - bash: |\n      trtexec --onnx=m.onnx --safe --fp16\n"
    circle = (
        "jobs:\n  build:\n    steps:\n      - run:\n          name: engine\n"
        "          command: trtexec --onnx=m.onnx --restricted\n"
    )
    assert rules_at(tmp_path, "azure-pipelines.yml", azure) == [(3, "precision-flags-removed-11x")]
    assert rules_at(tmp_path, ".circleci/config.yml", circle) == [(6, "restricted-removed-11x")]


def test_clean_tree_gives_an_empty_frame_with_the_columns() -> None:
    from trtsafe_lab.migrate import FINDING_COLUMNS, migration_findings

    frame = migration_findings(Path(__file__).parent / "fixtures" / "migrate" / "v11")
    assert frame.empty
    assert list(frame.columns) == list(FINDING_COLUMNS)


def test_cmake_bracket_comment_inside_an_argument_list_is_skipped() -> None:
    from trtsafe_lab.migrate.cmake import lex

    (install, message), partial = lex(
        "install(FILES a.engine #[[ ships\n the engine ]] a.engine.so\n  DESTINATION x)\n"
        "message(hi)"
    )
    assert partial is None
    assert [a.text for a in install.args] == [
        "FILES",
        "a.engine",
        "a.engine.so",
        "DESTINATION",
        "x",
    ]
    assert [a.line for a in install.args] == [1, 1, 2, 3, 3] and message.line == 4


def test_shell_commands_inside_substitutions_and_loops_are_seen() -> None:
    # tree-sitter-bash gives the structure: $(...) in an argument or an assignment runs, and
    # loop bodies are commands; a here-document body is data.
    script = (
        "echo $(trtexec --fp16)\n"
        'X=$(ssh host "trtexec_safe --useCudaGraph")\n'
        "for f in a b; do\n  trtexec --restricted \\\n    --safe\ndone\n"
        "cat <<EOF\ntrtexec --int8\nEOF\n"
    )
    facts = analyse_shell(script, "s.sh")
    assert [(f.line, f.rule) for f in facts.findings] == [
        (1, "precision-flags-removed-11x"),
        (2, "no-op-flag"),
        (4, "restricted-removed-11x"),
    ]


def test_attribute_macros_of_the_scan_are_blanked_before_parsing(tmp_path: Path) -> None:
    from trtsafe_lab.migrate.cpp_macros import attribute_macros, blank_macros

    (tmp_path / "api.h").write_text(
        '#define MYAPI __attribute__((visibility("default")))\n'
        "#define MY_DEPRECATED(why) [[deprecated(why)]]\n"
    )
    source = (
        '#include "api.h"\nclass MYAPI Graph {};\n'
        'MY_DEPRECATED("old") MYAPI void f() { createTRTGraph(g, b, n, *recorder, true); }\n'
    )
    (tmp_path / "app.cpp").write_text(source)
    assert [(f.line, f.rule) for f in check_paths([tmp_path])] == [(3, "companion-so-missing")]
    macros = attribute_macros([(tmp_path / "api.h").read_bytes()])
    assert macros == {"MYAPI": False, "MY_DEPRECATED": True}
    blanked = blank_macros(source.encode(), macros)
    assert len(blanked) == len(source) and blanked.count(b"\n") == source.count("\n")
    assert b"MYAPI" not in blanked.split(b"\n", 1)[1] and b'"old"' not in blanked
    # alone, app.cpp does not know MYAPI: a partly parsed file
    assert "file-unparsable" in {f.rule for f in check_paths([tmp_path / "app.cpp"])}


def test_make_expansion_keeps_the_line_where_the_command_used_the_word() -> None:
    from trtsafe_lab.migrate.words import Variables, Word, expand_make

    # a word already expanded once (written on line 5, used by the command on line 9)
    used = Word("$(FLAGS)", 5, 9)
    got = expand_make(used, Variables({"FLAGS": [Word("--safe", 2)]}))
    assert got == [Word("--safe", 2, 9)]
