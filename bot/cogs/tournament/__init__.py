"""Tournaments, one folder: the cog with its commands and buttons (cog.py), the watcher that
steps the tournaments of this process's shards and posts their games (watcher.py), and the
drawing of their posts (posts.py)."""

from __future__ import annotations

from bot.cogs.tournament.cog import TournamentCog, entrant_of, organiser_of

__all__ = ["TournamentCog", "entrant_of", "organiser_of"]
