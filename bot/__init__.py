"""caro's Discord bot: slash commands and button boards over the engine, with SQLite storage."""
