"""Puzzles: mined from games, re-proved, played move by move, stored and shared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Board, Mark
from engine.ai.position import Position
from engine.ai.threats import Budget, vcf
from engine.analysis.puzzles import (
    Limits,
    ProofKind,
    Puzzle,
    Refutation,
    Verdict,
    check_move,
    hardest,
    mine,
    prove,
    prove_board,
    read_puzzles,
    self_play,
    share_text,
    write_puzzles,
)
from engine.solve.solver import analyse

# X has H8 I8 J8 (blocked at G8) and K10 K11; O has an open three C3 D3 E3. At move 11 X can win
# by fours (K8, forcing L8, then K9: an open four) and plays A15 instead; O then takes K8.
HAND_GAME = "15x15 k5 freestyle H8 G8 I8 C3 J8 D3 K10 E3 K11 N14 A15 K8"
MISSED = "15x15 k5 freestyle H8 G8 I8 C3 J8 D3 K10 E3 K11 N14"
# X's open three H8 I8 J8: both G8 and K8 make an open four.
OPEN_THREE = "15x15 k5 freestyle H8 H9 I8 I9 J8 J9"
LIMITS = Limits()


@pytest.fixture(scope="module")
def mined() -> list[Puzzle]:
    puzzles = mine(Board.from_text(HAND_GAME), source="hand")
    games = list(self_play(2, node_limit=800, seed=3))
    for name, board in games:
        puzzles.extend(mine(board, source=name, min_moves=2))
    return puzzles


def test_mining_finds_the_missed_win_of_a_hand_made_game(mined: list[Puzzle]) -> None:
    found = [p for p in mined if p.source == "hand"]
    assert len(found) == 1
    puzzle = found[0]
    assert puzzle.position == MISSED
    assert puzzle.to_move is Mark.X
    assert puzzle.kind is ProofKind.VCF
    assert puzzle.origin == "missed_win"
    assert puzzle.line[0] == "K8" and puzzle.moves == 3
    assert puzzle.difficulty == puzzle.moves + puzzle.defences


def test_every_mined_puzzle_re_proves_from_scratch(mined: list[Puzzle]) -> None:
    assert len(mined) >= 2
    for puzzle in mined:
        puzzle.check()
        proof = prove(puzzle, LIMITS)
        assert proof is not None, puzzle.position
        assert proof.kind is puzzle.kind
        board = puzzle.board()
        for cell in proof.line:
            board.push(cell)
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is puzzle.to_move


def test_a_winning_first_move_other_than_the_stored_line_is_accepted() -> None:
    board = Board.from_text(OPEN_THREE)
    proof = prove_board(board)
    assert proof is not None
    stored = board.move_name(proof.line[0])
    other = {"G8": "K8", "K8": "G8"}[stored]
    checked = check_move(board, other)
    assert checked.verdict is Verdict.WINNING
    assert checked.reply is not None
    # The defence given is a legal reply, and the win goes on after it.
    board.push_name(other)
    board.push(checked.reply)
    assert prove_board(board) is not None


def test_the_puzzle_plays_to_the_end_against_the_best_defence() -> None:
    board = Board.from_text(MISSED)
    for _ in range(10):
        proof = prove_board(board)
        assert proof is not None
        checked = check_move(board, proof.line[0])
        board.push(proof.line[0])
        if checked.verdict is Verdict.SOLVED:
            break
        assert checked.verdict is Verdict.WINNING and checked.reply is not None
        board.push(checked.reply)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X


def test_a_losing_move_is_refuted_by_the_defenders_own_win() -> None:
    board = Board.from_text(MISSED)
    checked = check_move(board, "A15")
    assert checked.verdict is Verdict.WRONG
    assert checked.reason is Refutation.DEFENDER_WINS
    assert checked.reply is not None and checked.line[0] == checked.reply
    board.push_name("A15")
    board.push(checked.reply)
    # Checked cell by cell: X cannot win at once, and after any X stone O still has a five.
    empty = list(board.legal_moves)
    for cell in empty:
        board.push(cell)
        assert board.outcome() is None
        wins = [c for c in board.legal_moves if _wins(board, c)]
        board.pop()
        assert wins, f"X's {board.move_name(cell)} would stop O"


def test_a_quiet_move_is_refuted_by_a_reply_after_which_no_win_is_found() -> None:
    board = Board.from_text(OPEN_THREE)
    checked = check_move(board, "A1")
    assert checked.verdict is Verdict.WRONG
    assert checked.reason in (Refutation.HOLDS, Refutation.DEFENDER_WINS)
    assert checked.reply is not None
    board.push_name("A1")
    board.push(checked.reply)
    # Neither the proof with four times the nodes nor the pure-Python VCF finds a win after it.
    assert prove_board(board, Limits(oracle_nodes=4 * LIMITS.oracle_nodes)) is None
    assert vcf(Position(board.copy()), Budget(200_000, None)) is None


def test_a_losing_move_on_a_small_board_is_refuted_as_the_solver_proves() -> None:
    # Tic-tac-toe: O's edge reply to the centre loses; X to move wins.
    board = Board.from_text("3x3 k3 freestyle B2 A2")
    proof = prove_board(board)
    assert proof is not None and proof.kind is ProofKind.SOLVED
    wrong = [c for c in board.legal_moves if check_move(board, c).verdict is Verdict.WRONG]
    assert wrong
    for cell in wrong:
        checked = check_move(board, cell)
        assert checked.reply is not None
        after = board.copy()
        after.push(cell)
        after.push(checked.reply)
        assert after.is_over() or analyse(after).value != 1


def test_puzzles_round_trip_through_both_file_forms(
    mined: list[Puzzle], tmp_path: Path
) -> None:
    path = write_puzzles(mined, tmp_path / "p.jsonl")
    assert read_puzzles(path.read_text()) == mined
    assert read_puzzles(share_text(mined)) == mined


def test_a_damaged_puzzle_line_is_refused_with_its_line_number(mined: list[Puzzle]) -> None:
    data = mined[0].to_dict()
    data["line"] = data["line"][:-1]
    with pytest.raises(ValueError, match="line 2: the solution does not end"):
        read_puzzles("# a comment\n" + json.dumps(data))


def test_hardest_puts_the_most_difficult_first(mined: list[Puzzle]) -> None:
    ranked = hardest(mined, 2)
    assert len(ranked) == 2
    assert ranked[0].difficulty == max(p.difficulty for p in mined)


def _wins(board: Board, cell: tuple[int, int]) -> bool:
    board.push(cell)
    outcome = board.outcome()
    board.pop()
    won = outcome is not None and outcome.winner is not None
    return won


def _caro(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "puzzle", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_command_line_mines_plays_and_exports(tmp_path: Path) -> None:
    game = tmp_path / "hand.caro"
    game.write_text(
        "caro game record 1\nBoard: 15x15 k5 freestyle\nResult: none\n"
        f"Moves: {' '.join(HAND_GAME.split()[3:])}\n"
    )
    out = tmp_path / "p.jsonl"
    mined = _caro("mine", str(game), "--out", str(out))
    assert mined.returncode == 0, mined.stderr
    assert "1 puzzles written" in mined.stdout
    # A wrong move is explained, then K8 and K9 (not the stored order's only move) win.
    played = _caro("play", str(out), stdin="A15\nK8\nK9\nK12\nK7\n")
    assert played.returncode == 0, played.stderr
    assert "A15 does not win: the defence" in played.stdout
    assert "K8 still wins. The defence: L8." in played.stdout
    assert "Solved!" in played.stdout
    share = tmp_path / "share.txt"
    exported = _caro("export", str(out), "--hardest", "5", "--out", str(share))
    assert exported.returncode == 0, exported.stderr
    assert "X to play and win | vcf |" in share.read_text()
    again = _caro("play", str(share), stdin="quit\n")
    assert again.returncode == 1 and "A solution: K8 L8 K9" in again.stdout


def test_the_command_line_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a puzzle\n")
    result = _caro("play", str(bad))
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "line 1" in result.stderr
    assert _caro("mine", "--out", str(tmp_path / "x")).returncode == 2
    assert _caro("export", str(bad), "--hardest", "0", "--out", "x").returncode == 2


def test_a_renju_proof_never_reads_a_black_defence_on_a_forbidden_point():
    # A shipped renju puzzle one move earlier: black to move. Proving white's win after each of
    # black's likely moves must read only black's allowed replies (it used to push a forbidden
    # one and fail).
    from engine.ai import compiled

    board = Board.from_text(
        "15x15 k5 renju H10 H9 G9 F8 G10 G8 I10 F10 F9 E8 D8 I8 H8 K10 H11 J9 H7 F7 D5 D9 G6 "
        "I12 L11 J11 L9 J12 J10 K12 L12 H13 G14 G12 H12 L13 L8 L10 K11 I9 M13 N14 I11 K9 F11 "
        "M11 G13 F14 J8 K6 K8 M8 J7 M10 E11 G11 H5 I6 M9 I7 I5 J6 H6 H4 N10 L7 J5 K5 K7 O11 F5 G5"
    )
    ranked = compiled.think(board, None, 200_000, fresh=True).ranking[:10]
    for move in ranked:
        after = board.copy()
        after.push(divmod(move, board.cols))
        if not after.is_over():
            prove_board(after)
