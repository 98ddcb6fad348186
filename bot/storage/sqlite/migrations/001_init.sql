-- Games against the AI, their moves, and one result row per finished game (the stats source).
-- Discord ids (snowflakes) fit in SQLite's signed 64-bit INTEGER.

CREATE TABLE games (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,
    message_id     INTEGER,
    player_id      INTEGER NOT NULL,
    player_mark    TEXT    NOT NULL CHECK (player_mark IN ('X', 'O')),
    ai_level       TEXT    NOT NULL,
    rows           INTEGER NOT NULL CHECK (rows BETWEEN 1 AND 26),
    cols           INTEGER NOT NULL CHECK (cols BETWEEN 1 AND 26),
    k              INTEGER NOT NULL CHECK (k >= 1),
    rule           TEXT    NOT NULL,
    status         TEXT    NOT NULL DEFAULT 'active'
                           CHECK (status IN ('active', 'finished', 'abandoned')),
    -- From the player's side: 'win', 'draw' or 'loss'; NULL until finished.
    result         TEXT    CHECK (result IN ('win', 'draw', 'loss')),
    winner         TEXT    CHECK (winner IN ('X', 'O')),
    ply            INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    finished_at    TEXT
);

-- One running game per player per channel; the database enforces it even under races.
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (guild_id, channel_id, player_id) WHERE status = 'active';

CREATE TABLE moves (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply        INTEGER NOT NULL CHECK (ply >= 0),
    cell       TEXT    NOT NULL,
    by_ai      INTEGER NOT NULL CHECK (by_ai IN (0, 1)),
    -- Why the AI chose the move (engine.ai.explain), NULL for the player's moves.
    reason     TEXT,
    played_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (game_id, ply)
);

-- Written in the same transaction that moves a game from 'active' to 'finished', so each game
-- counts exactly once; the primary key refuses a second row for the same game.
CREATE TABLE results (
    game_id      INTEGER PRIMARY KEY REFERENCES games (id),
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    ai_level     TEXT    NOT NULL,
    result       TEXT    NOT NULL CHECK (result IN ('win', 'draw', 'loss')),
    points       INTEGER NOT NULL CHECK (points >= 0),
    finished_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX results_by_guild_user ON results (guild_id, user_id);
