"""What is shown of a tournament: the tournament a command names, its entries, pairings and
standings, and a tournament game's place in it (for its board). Reads only; no Discord here.
What members and organisers do is bot.game.tournaments', the running bot.game.tournament_runner's.
"""

from __future__ import annotations

from bot.game.errors import UserError
from bot.game.model import GameState
from bot.game.pairings import Standing, standings
from bot.game.ports import TournamentStore
from bot.game.tournament_model import (
    LIVE,
    EntryRow,
    PairingRow,
    TournamentGame,
    TournamentRow,
    scored,
)

# Tournament games whose place in their tournament this process remembers, for their boards.
KNOWN_GAMES = 1024


class TournamentReads:
    """The tournaments as stored, read for the cogs, the boards and the other services."""

    def __init__(self, store: TournamentStore) -> None:
        self._store = store
        # game id -> its place in its tournament: drawn with every move of its board, and the
        # same from the game's start to its end.
        self._games_known: dict[int, TournamentGame] = {}

    async def row(self, tournament_id: int) -> TournamentRow:
        """Tournament `tournament_id`; UserError if there is none."""
        row = await self._store.tournament(tournament_id)
        if row is None:
            raise UserError("tournament.unknown")
        return row

    async def find(self, guild_id: int, tournament_id: int) -> TournamentRow:
        """Tournament `tournament_id` of this server; UserError if there is none."""
        row = await self._store.tournament(tournament_id)
        if row is None or row.guild_id != guild_id:
            raise UserError("tournament.unknown")
        return row

    async def get(self, tournament_id: int) -> TournamentRow | None:
        return await self._store.tournament(tournament_id)

    async def in_server(self, guild_id: int, *, live_only: bool) -> list[TournamentRow]:
        return await self._store.guild_tournaments(guild_id, live_only=live_only)

    async def latest(
        self, guild_id: int, channel_id: int, tournament_id: int | None
    ) -> TournamentRow:
        """The tournament whose standings a command asks for: the one it names, else the
        server's newest one not over, else the newest one played in this channel, else the
        server's newest; UserError when the server has had none."""
        if tournament_id is not None:
            return await self.find(guild_id, tournament_id)
        every = await self._store.guild_tournaments(guild_id, live_only=False)
        for row in every:
            if row.status in LIVE:
                return row
        here = [row for row in every if row.channel_id == channel_id]
        if here:
            return here[0]
        if every:
            return every[0]
        raise UserError("tournament.none_yet")

    async def chosen(self, guild_id: int, tournament_id: int | None) -> TournamentRow:
        """The tournament a command names, or the server's newest one not over when it names
        none; UserError when there is none to choose."""
        if tournament_id is not None:
            return await self.find(guild_id, tournament_id)
        live = await self._store.guild_tournaments(guild_id, live_only=True)
        if not live:
            raise UserError("tournament.none")
        return live[0]

    async def entries(self, tournament_id: int) -> list[EntryRow]:
        return await self._store.entries(tournament_id)

    async def standings(self, row: TournamentRow, *, through: int | None = None) -> list[Standing]:
        """The standings now, or (`through`) after that round."""
        entries = await self._store.entries(row.id)
        pairings = await self._store.pairings(row.id)
        if through is not None:
            pairings = [p for p in pairings if p.round <= through]
        return standings([e.entrant for e in entries], scored(pairings))

    async def pairings(self, tournament_id: int) -> list[PairingRow]:
        return await self._store.pairings(tournament_id)

    async def game_of(self, state: GameState) -> TournamentGame | None:
        """The tournament and pairing of a tournament's game; None for any other game, and for
        one whose pairing is not stored (yet)."""
        tournament_id = state.row.tournament_id
        if tournament_id is None:
            return None
        known = self._games_known.get(state.id)
        if known is not None:
            return known
        row = await self._store.tournament(tournament_id)
        if row is None:
            return None
        pairing = next(
            (p for p in await self._store.pairings(tournament_id) if p.game_id == state.id),
            None,
        )
        if pairing is None or pairing.o is None:
            return None
        found = TournamentGame(row, pairing)
        if row.message_id is not None:
            # Remembered once its announcement is known, the one part that could change.
            if len(self._games_known) >= KNOWN_GAMES:
                self._games_known.pop(next(iter(self._games_known)))
            self._games_known[state.id] = found
        return found



__all__ = ["KNOWN_GAMES", "TournamentReads"]
