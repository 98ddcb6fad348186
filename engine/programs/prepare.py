"""`caro prepare`: compile the search core and the solver's core into this host's cache, then
exit, so that no game pays for it (for deploy scripts and images; `caro-bot --prepare` is the
same). `caro doctor` says whether that was done. The build runs each of its parts as `caro
prepare --part NAME` in a process of its own (engine.support.cores.build)."""

from __future__ import annotations

import argparse
import os
import sys

from ..ai import CORE_PARTS, build_core_part, build_cores
from ..support import cores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--background",
        action="store_true",
        help="run at the lowest CPU priority and print only failures (how the bot and "
        "`caro pbrain` build it while they serve)",
    )
    parser.add_argument(
        "--part",
        choices=CORE_PARTS,
        help="compile only this part, with no lock and no stamp (what a build runs, one "
        "process per part)",
    )


def _quiet(_line: str) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    if args.part:
        cores.die_with_parent()
        cores.configure_numba()
        build_core_part(args.part)
        return 0
    if args.background and hasattr(os, "nice"):
        # Batch work: the processes answering players come first.
        os.nice(19)
    try:
        seconds = build_cores(_quiet if args.background else _say)
    except cores.BuildFailed as exc:
        print(f"caro prepare: {exc}", file=sys.stderr)
        return 1
    if not args.background and seconds == 0.0:
        print(cores.status().summary())
    return 0


def _say(line: str) -> None:
    print(line, flush=True)
