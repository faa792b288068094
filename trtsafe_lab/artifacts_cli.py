"""``trtsafe-lab verify-pair``: check a safe engine + companion .so pair; exit 0 sound, 1 not."""

from __future__ import annotations

import argparse
from pathlib import Path

from trtsafe_lab.artifacts import TARGETS, PairError, SafeEnginePair, default_manifest_path
from trtsafe_lab.errors import UsageError


def _cli(args: argparse.Namespace) -> int:
    pair = SafeEnginePair.of(args.engine, args.so)
    manifest = Path(args.manifest) if args.manifest else default_manifest_path(pair.engine)
    if args.manifest and not manifest.is_file():  # a FIFO or /dev/zero would never end
        raise UsageError(f"--manifest {manifest} is not a regular file; give the pair's "
                         ".pair.json written by the build")
    use_manifest = manifest if (args.manifest or manifest.is_file()) else None
    try:
        problems = pair.validate(args.target, use_manifest, args.runtime_path)
    except PairError as err:
        problems = err.problems
    print(f"engine:       {pair.engine}")
    print(f"companion so: {pair.companion_so}")
    print(f"manifest:     {use_manifest or 'none found (sizes and hashes not checked)'}")
    if problems:
        print(f"NOT SOUND: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print("sound")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify-pair",
        help="check a safe engine and its companion .so (ELF type/machine, manifest hashes)",
        description="Check a TensorRT 11.3+ safe engine and its companion .so without loading "
        "the .so. Exit 0: the pair is sound; 1: it is not (every problem is listed).",
    )
    parser.add_argument("engine", help="the safe engine file")
    parser.add_argument("--so", help="the companion .so (if omitted: <engine>.so)")
    parser.add_argument("--manifest", help="the pair manifest (if omitted: <engine>.pair.json, "
                        "when present)")
    parser.add_argument("--target", choices=TARGETS, help="expected machine of the .so "
                        "(if omitted: the manifest's, else x86_64 for the proxy runtime)")
    parser.add_argument("--runtime-path", metavar="PATH",
                        help="where the .so will be on the target, as the application will pass "
                        "it to createTRTGraph (checked to be absolute)")
    parser.set_defaults(func=_cli)
