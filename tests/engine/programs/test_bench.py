"""`caro bench` on tiny configurations: the tables come out with the expected columns."""

from __future__ import annotations

import argparse

import pytest

from engine import Rule
from engine.programs import COMMANDS
from engine.programs.bench import (
    LATENCY_HEADER,
    add_arguments,
    format_table,
    measure_level,
    parse_sizes,
    run,
    sample_positions,
)


def bench_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_parse_sizes() -> None:
    assert parse_sizes("3x3k3, 9x9k5,15x15K5") == [(3, 3, 3), (9, 9, 5), (15, 15, 5)]
    assert parse_sizes("5x4k4") == [(5, 4, 4)]
    # k defaults as in every other command (five, or the longer side when shorter).
    assert parse_sizes("9x9, 4x4") == [(9, 9, 5), (4, 4, 4)]
    with pytest.raises(ValueError, match="k must be"):
        parse_sizes("3x3k4")
    with pytest.raises(ValueError, match="no board sizes"):
        parse_sizes(" , ")


def test_positions_come_from_reproducible_self_play() -> None:
    first = sample_positions(5, 5, 4, Rule.FREESTYLE, 8, seed=1)
    again = sample_positions(5, 5, 4, Rule.FREESTYLE, 8, seed=1)
    other = sample_positions(5, 5, 4, Rule.FREESTYLE, 8, seed=2)
    assert [b.text() for b in first] == [b.text() for b in again]
    assert [b.text() for b in first] != [b.text() for b in other]
    assert len(first) == 8
    assert not any(b.is_over() for b in first)
    assert sum(b.ply > 0 for b in first) >= 4  # middlegames, not only empty boards


def test_measure_level_row() -> None:
    positions = sample_positions(3, 3, 3, Rule.FREESTYLE, 4, seed=0)
    row = measure_level(positions, "impossible")
    assert (row.size, row.level, row.moves) == ("3x3 k3", "impossible", 4)
    assert 0 < row.p50_ms <= row.p95_ms <= row.max_ms
    assert row.solved == 4  # the solver answers every 3x3 position


def test_format_table_aligns_columns() -> None:
    text = format_table(("name", "n"), [["a", "10"], ["long", "2"]])
    assert text.splitlines() == ["name   n", "a     10", "long   2"]


def test_tiny_bench_prints_every_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert COMMANDS["bench"][0] == "engine.programs.bench"
    args = bench_args("--sizes", "3x3k3", "--levels", "easy,impossible", "--moves", "3",
                      "--mc-playouts", "100")
    assert run(args) == 0
    out = capsys.readouterr().out.splitlines()
    header = out.index(next(line for line in out if line.startswith("size")))
    assert out[header].split() == ["size", "level", "moves", "p50", "ms", "p95", "ms", "max", "ms",
                                   "nodes/s", "depth", "solved"]
    assert len(LATENCY_HEADER) == 9
    assert [line.split()[2] for line in out[header + 1 : header + 3]] == ["easy", "impossible"]
    assert all(line.split()[3] == "3" for line in out[header + 1 : header + 3])
    solver = next(i for i, line in enumerate(out) if line.startswith("(m,n,k)"))
    assert out[solver].split() == ["(m,n,k)", "value", "plies", "nodes", "seconds"]
    assert out[solver + 1].split()[:3] == ["(3,3,3)", "draw", "9"]
    assert out[solver + 2].split()[:3] == ["(4,4,4)", "draw", "16"]
    mc = next(i for i, line in enumerate(out) if line.startswith("player"))
    assert out[mc + 1].split()[0] == "impossible" and out[mc + 1].split()[-1] == "yes"
    assert out[mc + 2].split()[0] == "mc(100)"
    assert out[mc + 2].split()[-1] in ("yes", "no")
    assert any(line.startswith("3x3 impossible after warm-up: median") for line in out)


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(bench_args("--levels", "godlike")) == 2
    assert "unknown level godlike" in capsys.readouterr().err
    assert run(bench_args("--moves", "0")) == 2
    assert run(bench_args("--sizes", "3x3k4")) == 2
    assert "k must be from 1 to 3" in capsys.readouterr().err
    assert run(bench_args("--sizes", "nine")) == 2
    assert "like 15x15k5" in capsys.readouterr().err
