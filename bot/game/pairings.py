"""Tournament pairings and standings, as pure functions of the games played so far.

Formats (one type, `Format`):

* round-robin: everyone plays everyone once, by the circle method (Berger tables);
* Swiss: a chosen number of rounds; each round pairs players of equal or close scores, never the
  same two twice, keeps everyone within two of even colours and off a third same colour in a
  row where a pairing allows it, and gives a bye to the lowest-ranked player who has not had one;
* arena: for a fixed time, whoever is free is paired with whoever else is free, preferring a
  different opponent from their last one.

X moves first, so "colour" here is X or O. A bye scores a win and counts as no game in the
tie-breaks. Standings rank by points, then Buchholz (the sum of the opponents' points), then
Sonneborn-Berger (the points of the opponents beaten plus half of those drawn), then seed.

Everything here is decided from the players' seeds and the results so far, so pairing a round
twice gives the same pairs: a restart in the middle of a round cannot pair anyone differently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

PlayerId = str


class Format(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    ARENA = "arena"


class Outcome(StrEnum):
    """A finished pairing, from X's side."""

    X_WINS = "x"
    O_WINS = "o"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of a round: `x` plays X (moves first) against `o`."""

    x: PlayerId
    o: PlayerId


@dataclass(frozen=True, slots=True)
class Game:
    """A played game of the tournament, or a bye (`o` is None, and `outcome` is None)."""

    round: int
    x: PlayerId
    o: PlayerId | None
    outcome: Outcome | None

    @property
    def is_bye(self) -> bool:
        return self.o is None

    def points(self, player: PlayerId) -> Fraction:
        if self.o is None:
            return Fraction(1) if player == self.x else Fraction(0)
        if self.outcome is Outcome.DRAW:
            return Fraction(1, 2)
        winner = self.x if self.outcome is Outcome.X_WINS else self.o
        return Fraction(1) if player == winner else Fraction(0)

    def opponent(self, player: PlayerId) -> PlayerId | None:
        return self.o if player == self.x else self.x


@dataclass(frozen=True, slots=True)
class Round:
    """The pairings of one round and who sits out with a bye (None when nobody does)."""

    pairings: tuple[Pairing, ...]
    bye: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: PlayerId
    points: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    games: int


class PairingError(ValueError):
    """No pairing exists under the format's rules (e.g. more Swiss rounds than players allow)."""


# ---------------------------------------------------------------------------------- history
@dataclass(slots=True)
class _Record:
    points: Fraction
    opponents: set[PlayerId]
    colours: list[str]  # "x" or "o", in round order; byes add nothing
    had_bye: bool


def _records(players: Sequence[PlayerId], games: Iterable[Game]) -> dict[PlayerId, _Record]:
    records = {p: _Record(Fraction(0), set(), [], False) for p in players}
    for game in sorted(games, key=lambda g: g.round):
        if game.o is None:
            if game.x in records:
                records[game.x].had_bye = True
                records[game.x].points += 1
            continue
        if game.outcome is None:
            continue
        for player, colour in ((game.x, "x"), (game.o, "o")):
            if player in records:
                record = records[player]
                record.points += game.points(player)
                record.opponents.add(game.opponent(player) or "")
                record.colours.append(colour)
    return records


def _must(record: _Record) -> int:
    """+1 if the player must have X next, -1 if O, else 0: no one goes three colours up, nor
    has one colour three times running."""
    balance = record.colours.count("o") - record.colours.count("x")
    if balance >= 2 or record.colours[-2:] == ["o", "o"]:
        return 1
    if balance <= -2 or record.colours[-2:] == ["x", "x"]:
        return -1
    return 0


def _clash(a: _Record, b: _Record) -> bool:
    """Whether two players must both have the same colour."""
    must = _must(a)
    return must != 0 and must == _must(b)


def _wants_x(record: _Record) -> int:
    """How strongly a player should get X next: positive wants X, negative wants O."""
    must = _must(record)
    if must:
        return must * 10
    balance = record.colours.count("o") - record.colours.count("x")
    if balance:
        return balance * 2
    if record.colours:
        return 1 if record.colours[-1] == "o" else -1
    return 0


def _coloured(a: PlayerId, b: PlayerId, records: dict[PlayerId, _Record], board: int) -> Pairing:
    """`a` ranks above `b`. The stronger colour wish wins; with none, the higher-ranked player
    alternates colours board by board (X on the first board)."""
    want_a, want_b = _wants_x(records[a]), _wants_x(records[b])
    if want_a != want_b:
        return Pairing(a, b) if want_a > want_b else Pairing(b, a)
    if want_a and want_a == want_b:
        # Both want the same colour equally: the higher-ranked player gets it.
        return Pairing(a, b) if want_a > 0 else Pairing(b, a)
    return Pairing(a, b) if board % 2 == 0 else Pairing(b, a)


# ---------------------------------------------------------------------------------- Swiss
def swiss_round(players: Sequence[PlayerId], games: Iterable[Game]) -> Round:
    """The next Swiss round for `players` (in seed order: the strongest first) given every game
    so far. PairingError if no pairing without a repeat exists."""
    if len(players) < 2:
        raise PairingError("a round needs at least two players")
    if len(set(players)) != len(players):
        raise PairingError("a player is listed twice")
    records = _records(players, games)
    seed = {p: i for i, p in enumerate(players)}
    ranked = sorted(players, key=lambda p: (-records[p].points, seed[p]))
    bye = None
    if len(ranked) % 2:
        # The lowest-ranked player who has not had a bye sits out.
        candidates = [p for p in reversed(ranked) if not records[p].had_bye]
        if not candidates:
            raise PairingError("every player has had a bye")
        bye = candidates[0]
        ranked = [p for p in ranked if p != bye]
    # The colour rule gives way before a round goes unpaired; a repeat never does.
    pairs = _pair(ranked, records, colours=True)
    if pairs is None:
        pairs = _pair(ranked, records, colours=False)
    if pairs is None:
        raise PairingError("no pairing of this round avoids a repeat")
    return Round(
        tuple(_coloured(a, b, records, board) for board, (a, b) in enumerate(pairs)), bye
    )


def _pair(
    ranked: list[PlayerId], records: dict[PlayerId, _Record], *, colours: bool
) -> list[tuple[PlayerId, PlayerId]] | None:
    """Pairs of `ranked` (an even list, best first) with no repeat: the top player of the
    highest score group meets the player half a group below them (1 v 5 in a group of 8, the
    Dutch way), else the next best fit; backtracks when a choice leaves the rest unpairable."""
    if not ranked:
        return []
    top, rest = ranked[0], ranked[1:]
    group = [p for p in ranked if records[p].points == records[top].points]
    half = len(group) // 2
    # In the top player's group, the ideal opponent is `half` places below; then the others of
    # the lower half in order, then the upper half; then players of lower scores, best first.
    lower = group[half:] if half else group[1:]
    upper = [p for p in group[1:half]]
    order = [p for p in lower if p != top] + upper + [p for p in rest if p not in group]
    for opponent in order:
        if opponent in records[top].opponents:
            continue
        if colours and _clash(records[top], records[opponent]):
            continue
        remaining = [p for p in rest if p != opponent]
        tail = _pair(remaining, records, colours=colours)
        if tail is not None:
            return [(top, opponent), *tail]
    return None


# ---------------------------------------------------------------------------------- round-robin
def round_robin(players: Sequence[PlayerId]) -> list[Round]:
    """Every round of a round-robin (the circle method): n-1 rounds for an even n, n for an
    odd n, where each round one player has a bye. Colours alternate so no one has more than
    one colour in excess."""
    if len(players) < 2:
        raise PairingError("a round-robin needs at least two players")
    seats: list[PlayerId | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    rounds = []
    for number in range(n - 1):
        pairings = []
        bye = None
        for board in range(n // 2):
            a, b = seats[board], seats[n - 1 - board]
            if a is None or b is None:
                bye = a if b is None else b
                continue
            # The fixed seat alternates colours by round; elsewhere the top row takes X. Each
            # player passes through every other seat once, as many in the top row as in the
            # bottom, so no one ends more than one colour up.
            if board == 0 and number % 2:
                a, b = b, a
            pairings.append(Pairing(a, b))
        rounds.append(Round(tuple(pairings), bye))
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


# ---------------------------------------------------------------------------------- arena
def arena_pairs(
    waiting: Sequence[PlayerId], games: Iterable[Game], scores: dict[PlayerId, Fraction] | None = None
) -> list[Pairing]:
    """Pairs among the players `waiting` (in the order they became free): close scores first,
    and never the same two in a row when anyone else is free. Whoever is left waits."""
    records = _records(waiting, games)
    last: dict[PlayerId, PlayerId | None] = {}
    for game in sorted(games, key=lambda g: g.round):
        if game.o is not None:
            last[game.x], last[game.o] = game.o, game.x
    points = scores if scores is not None else {p: records[p].points for p in waiting}
    free = sorted(waiting, key=lambda p: -points.get(p, Fraction(0)))
    pairs: list[Pairing] = []
    while len(free) >= 2:
        player = free.pop(0)
        choice = next((p for p in free if last.get(player) != p), free[0])
        free.remove(choice)
        pairs.append(_coloured(player, choice, records, len(pairs)))
    return pairs


# ---------------------------------------------------------------------------------- standings
def standings(players: Sequence[PlayerId], games: Sequence[Game]) -> list[Standing]:
    """Everyone ranked: points, then Buchholz, then Sonneborn-Berger, then seed. Equal on all
    four shares a rank only by seed, so ranks are 1..n."""
    records = _records(players, games)
    seed = {p: i for i, p in enumerate(players)}
    rows = []
    for player in players:
        buchholz = Fraction(0)
        berger = Fraction(0)
        played = 0
        for game in games:
            if game.is_bye or game.outcome is None or player not in (game.x, game.o):
                continue
            played += 1
            opponent = game.opponent(player)
            assert opponent is not None
            their = records[opponent].points if opponent in records else Fraction(0)
            buchholz += their
            berger += game.points(player) * their
        rows.append((player, records[player].points, buchholz, berger, played))
    rows.sort(key=lambda r: (-r[1], -r[2], -r[3], seed[r[0]]))
    return [
        Standing(rank, player, points, buchholz, berger, played)
        for rank, (player, points, buchholz, berger, played) in enumerate(rows, start=1)
    ]


__all__ = [
    "Format",
    "Game",
    "Outcome",
    "Pairing",
    "PairingError",
    "PlayerId",
    "Round",
    "Standing",
    "arena_pairs",
    "round_robin",
    "standings",
    "swiss_round",
]
