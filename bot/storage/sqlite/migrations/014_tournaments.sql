-- Tournaments (bot/game/tournament_model.py): the tournament, its entries and its pairings.
-- Times the bot computes (the start, an arena's end) are unix seconds, like the game clocks.
CREATE TABLE tournaments (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    -- The announcement that carries the Join button.
    message_id    INTEGER,
    created_by    INTEGER NOT NULL,
    format        TEXT    NOT NULL CHECK (format IN ('round_robin', 'swiss', 'arena')),
    rounds        INTEGER CHECK (rounds >= 1),
    minutes       INTEGER CHECK (minutes >= 1),
    max_players   INTEGER NOT NULL CHECK (max_players >= 2),
    rows          INTEGER NOT NULL CHECK (rows BETWEEN 1 AND 26),
    cols          INTEGER NOT NULL CHECK (cols BETWEEN 1 AND 26),
    k             INTEGER NOT NULL CHECK (k >= 1),
    rule          TEXT    NOT NULL,
    opening       TEXT    NOT NULL,
    turn_seconds  REAL    NOT NULL CHECK (turn_seconds > 0),
    rated         INTEGER NOT NULL CHECK (rated IN (0, 1)),
    starts_at     REAL    NOT NULL,
    locale        TEXT    NOT NULL DEFAULT 'en-US',
    status        TEXT    NOT NULL DEFAULT 'open'
                          CHECK (status IN ('open', 'running', 'paused', 'finished', 'cancelled')),
    -- The last round paired, and the last round whose standings were posted: each moves up by
    -- one guarded UPDATE, so two processes do a step once.
    round         INTEGER NOT NULL DEFAULT 0 CHECK (round >= 0),
    announced     INTEGER NOT NULL DEFAULT 0 CHECK (announced >= 0),
    started_at    REAL,
    ends_at       REAL,
    finished_at   REAL,
    created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- The tournaments not over, which every process's tournament loop reads for its shard.
CREATE INDEX tournaments_live ON tournaments (status, id)
    WHERE status IN ('open', 'running', 'paused');
-- A server's tournaments, newest first.
CREATE INDEX tournaments_by_guild ON tournaments (guild_id, id);

-- An entry is a member's id in digits or an AI level's name ("hard", "hard#2"). `seed` is the
-- order of entry until the start sets the starting order.
CREATE TABLE tournament_entries (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    entrant        TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    withdrawn      INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
    joined_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (tournament_id, entrant)
);

-- A game of a round, or a bye (o NULL). `x` and `o` are the colours the players ended with;
-- `outcome` is from X's side, NULL until known. The unique keys keep a board to one pairing
-- and a game to one board.
CREATE TABLE tournament_pairings (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    round          INTEGER NOT NULL CHECK (round >= 1),
    board          INTEGER NOT NULL,
    x              TEXT    NOT NULL,
    o              TEXT,
    game_id        INTEGER REFERENCES games (id),
    outcome        TEXT    CHECK (outcome IN ('x', 'o', 'draw')),
    UNIQUE (tournament_id, round, board),
    CHECK (o IS NOT NULL OR (game_id IS NULL AND outcome IS NULL))
);
CREATE UNIQUE INDEX tournament_pairings_one_per_game
    ON tournament_pairings (game_id) WHERE game_id IS NOT NULL;

-- A tournament's games, and the turn time the tournament set for them (NULL: the server's).
ALTER TABLE games ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id);
ALTER TABLE games ADD COLUMN turn_seconds REAL CHECK (turn_seconds > 0);

-- A tournament runs its AI-vs-AI games side by side in its channel: the one-watch rule is for
-- the watches members start.
DROP INDEX games_one_watch_per_channel;
CREATE UNIQUE INDEX games_one_watch_per_channel
    ON games (guild_id, channel_id) WHERE status = 'active' AND mode = 'watch'
                                      AND tournament_id IS NULL;
CREATE INDEX games_by_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL;

-- Members of this role may run any of the server's tournaments (NULL: none).
ALTER TABLE guild_settings ADD COLUMN tournament_role BIGINT;
