-- Games between two people and between two AIs, turn clocks, resignations, hints,
-- per-server settings, challenges and Elo ratings.

-- Who plays: 'ai' (player_id against ai_level), 'pvp' (player_id against opponent_id; ai_level
-- holds 'pvp') or 'watch' (player_level plays player_mark against ai_level; player_id only
-- started it and does not play).
ALTER TABLE games ADD COLUMN mode TEXT NOT NULL DEFAULT 'ai' CHECK (mode IN ('ai', 'pvp', 'watch'));
ALTER TABLE games ADD COLUMN opponent_id INTEGER;
ALTER TABLE games ADD COLUMN player_level TEXT;
-- Unix time (seconds) at which the side to move loses on time; NULL while no clock runs (the
-- AI's turn, AI-vs-AI games, finished games).
ALTER TABLE games ADD COLUMN deadline REAL;
ALTER TABLE games ADD COLUMN end_reason TEXT CHECK (end_reason IN ('line', 'full', 'resign', 'timeout'));
ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0);
-- Language of the public game message (the starter's Discord locale).
ALTER TABLE games ADD COLUMN locale TEXT NOT NULL DEFAULT 'en-US';

-- A watched AI-vs-AI game must not stop its starter from playing in the same channel.
DROP INDEX games_one_active_per_channel;
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (guild_id, channel_id, player_id) WHERE status = 'active' AND mode <> 'watch';
CREATE INDEX games_by_deadline ON games (deadline) WHERE status = 'active' AND deadline IS NOT NULL;

-- Turn time limits in seconds, per server; a server without a row uses the defaults in code.
CREATE TABLE guild_settings (
    guild_id     INTEGER PRIMARY KEY,
    pvp_timeout  REAL    NOT NULL CHECK (pvp_timeout > 0),
    ai_timeout   REAL    NOT NULL CHECK (ai_timeout > 0)
);

CREATE TABLE challenges (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,
    message_id     INTEGER,
    challenger_id  INTEGER NOT NULL,
    opponent_id    INTEGER NOT NULL,
    rows           INTEGER NOT NULL CHECK (rows BETWEEN 1 AND 26),
    cols           INTEGER NOT NULL CHECK (cols BETWEEN 1 AND 26),
    k              INTEGER NOT NULL CHECK (k >= 1),
    rule           TEXT    NOT NULL,
    -- 'me' (the challenger plays X), 'them' or 'random' (drawn when accepted).
    first          TEXT    NOT NULL CHECK (first IN ('me', 'them', 'random')),
    locale         TEXT    NOT NULL DEFAULT 'en-US',
    status         TEXT    NOT NULL DEFAULT 'pending'
                           CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
    deadline       REAL    NOT NULL,
    game_id        INTEGER REFERENCES games (id),
    created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX challenges_pending ON challenges (deadline) WHERE status = 'pending';

-- Elo standings per scope (a server id, or 0 for the global table) and mode ('pvp' or 'ai').
CREATE TABLE standings (
    scope    INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    mode     TEXT    NOT NULL CHECK (mode IN ('pvp', 'ai')),
    rating   REAL    NOT NULL,
    wins     INTEGER NOT NULL DEFAULT 0,
    draws    INTEGER NOT NULL DEFAULT 0,
    losses   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, user_id, mode)
);

CREATE INDEX standings_rank ON standings (scope, mode, rating DESC);

-- One row per rated player per scope per game, written in the transaction that finishes the
-- game: the primary key refuses a second rating update for the same game.
CREATE TABLE rating_changes (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    scope    INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    mode     TEXT    NOT NULL,
    before   REAL    NOT NULL,
    after    REAL    NOT NULL,
    PRIMARY KEY (game_id, scope, user_id)
);
