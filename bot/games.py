"""The game service: options, moves, AI turns and per-game locks. No Discord code here.

Rules come from engine/ (Board decides legality and results); this module validates what users
send, keeps the database and the board in step, and serialises changes to one game with an
asyncio.Lock per game so two clicks on the same turn apply one move.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from engine import Board, IllegalMoveError, InvalidMoveError, Mark, Rule
from engine.notation import cell_name

from .storage import ActiveGameExists, Finish, GameRow, NewGame, Storage
from .texts import t

LEVELS: tuple[str, ...] = ("easy", "normal", "hard", "impossible")
# Leaderboard points per result are multiplied by the difficulty's weight (see board.rule text).
LEVEL_WEIGHT: dict[str, int] = {"easy": 1, "normal": 2, "hard": 3, "impossible": 4}
RESULT_POINTS: dict[str, int] = {"win": 3, "draw": 1, "loss": 0}
SIZES: dict[str, tuple[int, int, int]] = {"3x3": (3, 3, 3), "4x4": (4, 4, 4), "5x5": (5, 5, 4)}
RULES: tuple[str, ...] = tuple(r.value for r in Rule)
FIRSTS: tuple[str, ...] = ("me", "ai", "random")

# caro:m:<game id>:<ply>:<cell>; the ply is the number of moves already played when the board
# was drawn, so a click from an older drawing of the board is recognised as stale.
CUSTOM_ID = re.compile(
    r"caro:m:(?P<game>[1-9][0-9]{0,17}):(?P<ply>0|[1-9][0-9]{0,2}):(?P<cell>[A-Z][1-9][0-9]?)"
)

Think = Callable[[Board, str, str], Awaitable[tuple[tuple[int, int], str]]]
"""(board, level, seed) -> (AI's cell, reason id from engine.ai.explain)."""


class UserError(ValueError):
    """Something a user sent cannot be done; str() is the message to show them."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(t(key, **values))
        self.key = key
        self.values = values


@dataclass(frozen=True, slots=True)
class GameOptions:
    level: str
    rows: int
    cols: int
    k: int
    rule: Rule
    first: str  # "me", "ai" or "random"


def _choice(value: str | None, default: str, allowed: tuple[str, ...], option: str) -> str:
    if value is None:
        return default
    cleaned = value.strip().lower()
    if cleaned not in allowed:
        raise UserError(
            "error.bad_choice",
            value=value[:40].replace("*", "").replace("`", "") or "(empty)",
            option=t(f"option.{option}"),
            choices=", ".join(allowed),
        )
    return cleaned


def parse_options(
    difficulty: str | None = None,
    size: str | None = None,
    rule: str | None = None,
    first: str | None = None,
) -> GameOptions:
    """Options of /caro start; UserError naming the valid choices for anything else."""
    level = _choice(difficulty, "normal", LEVELS, "difficulty")
    size_key = _choice(size, "3x3", tuple(SIZES), "size")
    rule_name = _choice(rule, "freestyle", RULES, "rule")
    who = _choice(first, "me", FIRSTS, "first")
    rows, cols, k = SIZES[size_key]
    return GameOptions(
        level=level, rows=rows, cols=cols, k=k, rule=Rule.parse(rule_name), first=who
    )


def points_for(result: str, level: str) -> int:
    return RESULT_POINTS[result] * LEVEL_WEIGHT[level]


def ai_seed(game_id: int, ply: int) -> str:
    """Seed of the AI's random choices for one move: the same game position, the same move."""
    return f"caro-game-{game_id}-ply-{ply}"


def custom_id(game_id: int, ply: int, cell: tuple[int, int]) -> str:
    return f"caro:m:{game_id}:{ply}:{cell_name(cell)}"


@dataclass(frozen=True, slots=True)
class MoveRef:
    """A parsed button click: which game, which drawing of the board, which cell."""

    game_id: int
    ply: int
    cell: str


def parse_custom_id(text: str) -> MoveRef:
    match = CUSTOM_ID.fullmatch(text)
    if match is None:
        raise UserError("click.forged")
    return MoveRef(int(match["game"]), int(match["ply"]), match["cell"])


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored game with its board rebuilt from the stored moves."""

    row: GameRow
    board: Board

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def player_mark(self) -> Mark:
        return Mark[self.row.player_mark]

    @property
    def ai_mark(self) -> Mark:
        return self.player_mark.other

    @property
    def active(self) -> bool:
        return self.row.status == "active"

    @property
    def ai_to_move(self) -> bool:
        return self.active and not self.board.is_over() and self.board.turn is self.ai_mark

    @property
    def last_ai_move(self) -> tuple[str, str] | None:
        """(cell name, reason id) of the AI's latest move, if it has moved."""
        for move in reversed(self.row.moves):
            if move.by_ai:
                return move.cell, move.reason or "unknown"
        return None


def load_state(row: GameRow) -> GameState:
    board = Board(row.rows, row.cols, row.k, Rule.parse(row.rule))
    for move in row.moves:
        board.push_name(move.cell)
    return GameState(row=row, board=board)


def result_for(board: Board, player: Mark) -> Finish | None:
    outcome = board.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return Finish(result="draw", winner=None, points=0)
    result = "win" if outcome.winner is player else "loss"
    return Finish(result=result, winner=outcome.winner.name, points=0)


class GameService:
    def __init__(self, storage: Storage, think: Think) -> None:
        self.storage = storage
        self._think = think
        self._locks: dict[int, asyncio.Lock] = {}
        self._thinking: set[int] = set()

    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    async def start(
        self,
        *,
        guild_id: int,
        channel_id: int,
        player_id: int,
        options: GameOptions,
        rng: random.Random,
    ) -> GameState:
        """A new running game; ActiveGameExists if the player has one in this channel."""
        player_first = options.first == "me" or (options.first == "random" and rng.random() < 0.5)
        row = await self.storage.create_game(
            NewGame(
                guild_id=guild_id,
                channel_id=channel_id,
                player_id=player_id,
                player_mark="X" if player_first else "O",
                ai_level=options.level,
                rows=options.rows,
                cols=options.cols,
                k=options.k,
                rule=options.rule.value,
            )
        )
        return load_state(row)

    async def active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        return await self.storage.active_game(guild_id, channel_id, player_id)

    async def attach_message(self, game_id: int, message_id: int) -> None:
        await self.storage.set_message(game_id, message_id)

    async def abandon(self, game_id: int) -> None:
        await self.storage.abandon_game(game_id)

    async def state(self, game_id: int) -> GameState | None:
        row = await self.storage.game(game_id)
        return None if row is None else load_state(row)

    async def play(self, ref: MoveRef, *, user_id: int, message_id: int | None) -> GameState:
        """The player's click; UserError (nothing changed) if it cannot be applied now."""
        async with self._lock(ref.game_id):
            state = await self.state(ref.game_id)
            if state is None:
                raise UserError("click.no_game")
            if state.row.player_id != user_id:
                raise UserError("click.not_your_game")
            if not state.active:
                raise UserError("click.finished")
            if message_id is not None and state.row.message_id not in (None, message_id):
                raise UserError("click.stale")
            board = state.board
            if ref.ply != board.ply:
                raise UserError("click.stale")
            if board.turn is not state.player_mark:
                raise UserError("click.not_your_turn")
            try:
                cell = board.parse_move(ref.cell)
            except InvalidMoveError:
                raise UserError("click.off_board", cell=ref.cell) from None
            try:
                board.push(cell)
            except IllegalMoveError:
                raise UserError("click.taken", cell=ref.cell) from None
            finish = self._finish(board, state)
            stored = await self.storage.add_move(
                state.id, ref.ply, ref.cell, by_ai=False, finish=finish
            )
            if not stored:
                raise UserError("click.stale")
            return await self._reload(state.id)

    async def ai_move(self, game_id: int) -> GameState | None:
        """Let the AI answer if it is its turn; None if there was nothing to do (or it lost a race).

        The search runs without the game's lock (it may take seconds); the answer is stored only
        if the game has not moved on meanwhile.
        """
        if game_id in self._thinking:
            return None
        self._thinking.add(game_id)
        try:
            state = await self.state(game_id)
            if state is None or not state.ai_to_move:
                return None
            ply = state.board.ply
            cell, reason = await self._think(
                state.board.copy(), state.row.ai_level, ai_seed(game_id, ply)
            )
            async with self._lock(game_id):
                state = await self.state(game_id)
                if state is None or not state.ai_to_move or state.board.ply != ply:
                    return None
                board = state.board
                board.push(cell)
                stored = await self.storage.add_move(
                    game_id,
                    ply,
                    cell_name(cell),
                    by_ai=True,
                    reason=reason,
                    finish=self._finish(board, state),
                )
                return await self._reload(game_id) if stored else None
        finally:
            self._thinking.discard(game_id)

    async def games_awaiting_ai(self) -> list[GameState]:
        return [load_state(row) for row in await self.storage.games_awaiting_ai()]

    @staticmethod
    def _finish(board: Board, state: GameState) -> Finish | None:
        finish = result_for(board, state.player_mark)
        if finish is None:
            return None
        return Finish(
            result=finish.result,
            winner=finish.winner,
            points=points_for(finish.result, state.row.ai_level),
        )

    async def _reload(self, game_id: int) -> GameState:
        state = await self.state(game_id)
        assert state is not None  # games are never deleted
        if not state.active:
            self._locks.pop(game_id, None)
        return state


__all__ = [
    "ActiveGameExists",
    "CUSTOM_ID",
    "FIRSTS",
    "GameOptions",
    "GameService",
    "GameState",
    "LEVELS",
    "MoveRef",
    "RULES",
    "SIZES",
    "UserError",
    "ai_seed",
    "custom_id",
    "load_state",
    "parse_custom_id",
    "parse_options",
    "points_for",
]
