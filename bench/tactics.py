"""Tactical suites for "impossible" at a fixed time a move: attack and defence, a score out of N.

    python -m bench.tactics [--seconds 1]
    python -m bench.tactics --make      # writes bench/data/defence_positions.txt anew

Attack: the proven puzzles caro ships (bot/game/shared_puzzles.jsonl, every rule), the side to
move having a forced win. A move passes when a forced win is still proven after it
(engine.analysis.puzzles.check_move), the five itself included.

Defence: the positions those puzzles came from, one move earlier, with the loser to move: the
defender had a move that leaves no forced win, yet most plausible moves (the core's ten
best-ranked at a node limit) leave one. A move passes when engine.analysis.puzzles proves no forced win
for the opponent after it (prove_board within its limits). The suite keeps positions where at
least one of the ten is safe and at least half are not.

Printed per position: its rule and ply, the move played, pass or fail and the time it took;
then the two scores. Each move is "impossible" as the bot plays it (engine.ai.choose_move at the
time limit, fresh tables), or with --brain COMMAND a Gomocup brain's at that turn time (another
tree of caro, to compare two builds; Rapfi, on the rules it plays).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent / "bot" / "game" / "shared_puzzles.jsonl"
DEFENCE = Path(__file__).with_name("data") / "defence_positions.txt"


def make() -> list[str]:
    from engine.ai import compiled
    from engine.analysis.puzzles import load_puzzles, prove_board

    kept = []
    for puzzle in load_puzzles(SHARED):
        board = puzzle.board()
        if not board.moves:
            continue
        board.pop()  # the defender's losing move
        result = compiled.think(board, None, 200_000, fresh=True)
        candidates = [m for m in result.ranking[:10]] or [result.move]
        losing = 0
        for move in candidates:
            after = board.copy()
            after.push(divmod(move, board.cols))
            if after.is_over() or prove_board(after) is not None:
                losing += 1
        if losing < len(candidates) and losing * 2 >= len(candidates):
            kept.append(board.text())
            print(f"kept ply {board.ply} {board.rule.value}: {losing}/{len(candidates)} lose",
                  flush=True)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--make", action="store_true")
    parser.add_argument("--brain", default=None,
                        help="a Gomocup brain's command to play the moves instead (another tree "
                             "of caro, Rapfi...): judged the same way")
    args = parser.parse_args(argv)

    from engine.ai import choose_move, warm_up
    from engine.analysis.puzzles import Verdict, check_move, load_puzzles, prove_board
    from engine.game.board import Board

    warm_up()
    if args.make:
        DEFENCE.parent.mkdir(exist_ok=True)
        DEFENCE.write_text("\n".join(make()) + "\n")
        print(f"wrote {DEFENCE}")
        return 0
    attack = [p.board() for p in load_puzzles(SHARED)]
    defence = [Board.from_text(line) for line in DEFENCE.read_text().splitlines() if line.strip()]
    brain = None
    if args.brain:
        from engine.players.external import ExternalEngine, parse_command

        brain = ExternalEngine(parse_command(args.brain), args.seconds)
    scores = {}
    for suite, boards in (("attack", attack), ("defence", defence)):
        passed = 0
        for i, board in enumerate(boards):
            start = time.perf_counter()
            if brain is not None:
                move = brain.move(board)
            else:
                move = choose_move(board, "impossible", time_limit=args.seconds,
                                   fresh_tables=True)
            spent = time.perf_counter() - start
            if suite == "attack":
                ok = check_move(board, move).verdict in (Verdict.SOLVED, Verdict.WINNING)
            else:
                after = board.copy()
                after.push(move)
                ok = not after.is_over() and prove_board(after) is None
            passed += ok
            print(f"{suite:>7} {i:>2} {board.rule.value:>9} ply {board.ply:>3} "
                  f"{board.move_name(move):>4} {'pass' if ok else 'FAIL'} {spent:.2f} s", flush=True)
        scores[suite] = (passed, len(boards))
    if brain is not None:
        brain.close()
    print(" ".join(f"{name} {p}/{n}" for name, (p, n) in scores.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
