-- A game has two seats, X and O, each a member (x_user_id / o_user_id) or an AI level (x_level /
-- o_level), and the member who started it apart (started_by): a member watching two AIs is no
-- longer stored as a player, and a game between members no longer has the level 'pvp'.
-- `rated` says whether finishing the game moves ratings (see bot/ratings.py:rated). The unused
-- points go. Runs with foreign keys off (see connection.py): tables are rebuilt, not altered.

CREATE TABLE games_seated (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,
    message_id     INTEGER,
    mode           TEXT    NOT NULL CHECK (mode IN ('ai', 'pvp', 'watch')),
    x_user_id      INTEGER,
    x_level        TEXT,
    o_user_id      INTEGER,
    o_level        TEXT,
    started_by     INTEGER NOT NULL,
    rows           INTEGER NOT NULL CHECK (rows BETWEEN 1 AND 26),
    cols           INTEGER NOT NULL CHECK (cols BETWEEN 1 AND 26),
    k              INTEGER NOT NULL CHECK (k >= 1),
    rule           TEXT    NOT NULL,
    status         TEXT    NOT NULL DEFAULT 'active'
                           CHECK (status IN ('active', 'finished', 'abandoned')),
    winner         TEXT    CHECK (winner IN ('X', 'O')),
    end_reason     TEXT    CHECK (end_reason IN ('line', 'full', 'resign', 'timeout')),
    rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
    ply            INTEGER NOT NULL DEFAULT 0,
    -- Unix time (seconds) at which the member to move loses on time; NULL while no clock runs.
    deadline       REAL,
    hints          INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0),
    locale         TEXT    NOT NULL DEFAULT 'en-US',
    created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    finished_at    TEXT,
    CHECK ((x_user_id IS NULL) <> (x_level IS NULL)),
    CHECK ((o_user_id IS NULL) <> (o_level IS NULL)),
    CHECK (mode <> 'ai' OR (x_user_id IS NULL) <> (o_user_id IS NULL)),
    CHECK (mode <> 'pvp' OR (x_user_id IS NOT NULL AND o_user_id IS NOT NULL
                             AND x_user_id <> o_user_id)),
    CHECK (mode <> 'watch' OR (x_level IS NOT NULL AND o_level IS NOT NULL))
);

-- The old row: player_id plays player_mark; the other mark is ai_level (mode 'ai'), opponent_id
-- (mode 'pvp'); in a watch player_level plays player_mark, ai_level the other, and player_id
-- only started it.
INSERT INTO games_seated (
    id, guild_id, channel_id, message_id, mode, x_user_id, x_level, o_user_id, o_level,
    started_by, rows, cols, k, rule, status, winner, end_reason, rated, ply, deadline, hints,
    locale, created_at, updated_at, finished_at)
SELECT
    id, guild_id, channel_id, message_id, mode,
    CASE mode WHEN 'watch' THEN NULL
              WHEN 'pvp' THEN CASE player_mark WHEN 'X' THEN player_id ELSE opponent_id END
              ELSE CASE player_mark WHEN 'X' THEN player_id END END,
    CASE mode WHEN 'watch' THEN CASE player_mark WHEN 'X' THEN player_level ELSE ai_level END
              WHEN 'ai' THEN CASE player_mark WHEN 'O' THEN ai_level END END,
    CASE mode WHEN 'watch' THEN NULL
              WHEN 'pvp' THEN CASE player_mark WHEN 'O' THEN player_id ELSE opponent_id END
              ELSE CASE player_mark WHEN 'O' THEN player_id END END,
    CASE mode WHEN 'watch' THEN CASE player_mark WHEN 'O' THEN player_level ELSE ai_level END
              WHEN 'ai' THEN CASE player_mark WHEN 'X' THEN ai_level END END,
    player_id, rows, cols, k, rule, status, winner,
    -- Games finished before end reasons were stored ended on the board.
    COALESCE(end_reason, CASE WHEN status = 'finished'
                              THEN CASE WHEN winner IS NULL THEN 'full' ELSE 'line' END END),
    -- A finished game was rated iff its ratings moved; the others follow today's rule.
    CASE WHEN status = 'finished'
         THEN EXISTS (SELECT 1 FROM rating_changes c WHERE c.game_id = games.id)
         ELSE mode <> 'watch' AND k >= 3 AND MIN(rows, cols) >= k END,
    ply, deadline, hints, locale, created_at, updated_at, finished_at
FROM games;

DROP TABLE games;
ALTER TABLE games_seated RENAME TO games;

-- At most one running AI-vs-AI game per channel (see migration 003).
CREATE UNIQUE INDEX games_one_watch_per_channel
    ON games (guild_id, channel_id) WHERE status = 'active' AND mode = 'watch';
CREATE INDEX games_by_deadline ON games (deadline) WHERE status = 'active' AND deadline IS NOT NULL;
CREATE INDEX games_by_channel ON games (guild_id, channel_id, status);

-- The seats members hold in running games: a row per member per running game, written and
-- removed in the transactions that start and end the game. The primary key is the rule "one
-- running game per member per channel", enforced by the database whichever seat they hold.
CREATE TABLE live_seats (
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    PRIMARY KEY (guild_id, channel_id, user_id)
);
CREATE INDEX live_seats_by_game ON live_seats (game_id);

-- The oldest running game keeps a seat if an old database let a member into two.
INSERT OR IGNORE INTO live_seats (guild_id, channel_id, user_id, game_id)
SELECT guild_id, channel_id, user_id, id FROM (
    SELECT guild_id, channel_id, x_user_id AS user_id, id FROM games
     WHERE status = 'active' AND x_user_id IS NOT NULL
    UNION ALL
    SELECT guild_id, channel_id, o_user_id, id FROM games
     WHERE status = 'active' AND o_user_id IS NOT NULL
) ORDER BY id;

-- Results per member and AI level (the source of /caro stats), without the unused points.
CREATE TABLE results_v5 (
    game_id      INTEGER PRIMARY KEY REFERENCES games (id),
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    ai_level     TEXT    NOT NULL,
    result       TEXT    NOT NULL CHECK (result IN ('win', 'draw', 'loss')),
    finished_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO results_v5 (game_id, guild_id, user_id, ai_level, result, finished_at)
SELECT game_id, guild_id, user_id, ai_level, result, finished_at FROM results;
DROP TABLE results;
ALTER TABLE results_v5 RENAME TO results;
CREATE INDEX results_by_guild_user ON results (guild_id, user_id);

-- Pending challenges are counted per challenger and per challenged member (limits).
CREATE INDEX challenges_pending_by_challenger ON challenges (challenger_id) WHERE status = 'pending';
CREATE INDEX challenges_pending_by_opponent ON challenges (opponent_id) WHERE status = 'pending';
