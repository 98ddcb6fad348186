-- Puzzles (engine.puzzles): positions whose side to move has a proven forced win, each with its
-- proof's line and size. guild_id is the server a puzzle was mined in, NULL for the shared set
-- every server sees; a position (its key: the stones and the side to move) is stored once per
-- scope. mu and sigma are the puzzle's own rating (a Weng-Lin rating, bot.game.puzzle_model),
-- which starts from its difficulty and moves as members solve or fail it.
CREATE TABLE puzzles (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER,
    key         TEXT    NOT NULL,
    position    TEXT    NOT NULL,
    to_move     TEXT    NOT NULL CHECK (to_move IN ('X', 'O')),
    kind        TEXT    NOT NULL CHECK (kind IN ('vcf', 'vct', 'solved')),
    line        TEXT    NOT NULL,
    moves       INTEGER NOT NULL CHECK (moves >= 1),
    defences    INTEGER NOT NULL CHECK (defences >= 0),
    difficulty  INTEGER NOT NULL CHECK (difficulty >= 1),
    source      TEXT    NOT NULL,
    ply         INTEGER NOT NULL CHECK (ply >= 0),
    origin      TEXT    NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL CHECK (sigma > 0),
    created_at  REAL    NOT NULL
);
CREATE UNIQUE INDEX puzzles_once_per_scope ON puzzles (COALESCE(guild_id, 0), key);
CREATE INDEX puzzles_by_guild ON puzzles (guild_id, mu);

-- A member's go at a puzzle, and while it is open the session itself: the board's message and
-- the moves played so far (both sides, cell names), so a click after a restart plays on.
-- A member has at most one open attempt per server; a puzzle is rated once per member and
-- server (the first attempt that finishes), so retries and the daily's repeats are not.
CREATE TABLE puzzle_attempts (
    id           INTEGER PRIMARY KEY,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    message_id   INTEGER,
    user_id      INTEGER NOT NULL,
    puzzle_id    INTEGER NOT NULL REFERENCES puzzles (id),
    kind         TEXT    NOT NULL CHECK (kind IN ('new', 'daily', 'retry')),
    locale       TEXT    NOT NULL DEFAULT 'en',
    outcome      TEXT    NOT NULL DEFAULT 'open'
                 CHECK (outcome IN ('open', 'solved', 'failed', 'abandoned')),
    moves        TEXT    NOT NULL DEFAULT '',
    rated        INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
    started_at   REAL    NOT NULL,
    finished_at  REAL
);
CREATE UNIQUE INDEX puzzle_attempts_one_open
    ON puzzle_attempts (guild_id, user_id) WHERE outcome = 'open';
CREATE UNIQUE INDEX puzzle_attempts_rated_once
    ON puzzle_attempts (guild_id, user_id, puzzle_id) WHERE rated = 1;
CREATE INDEX puzzle_attempts_by_member ON puzzle_attempts (guild_id, user_id, puzzle_id);

-- Each member's puzzle rating per server (Weng-Lin mu and sigma), rated attempts and streaks.
CREATE TABLE puzzle_ratings (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    mu           REAL    NOT NULL,
    sigma        REAL    NOT NULL CHECK (sigma > 0),
    solved       INTEGER NOT NULL DEFAULT 0,
    failed       INTEGER NOT NULL DEFAULT 0,
    streak       INTEGER NOT NULL DEFAULT 0,
    best_streak  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
);

-- The daily puzzle of each server per UTC date, claimed by one insert: the first process to
-- ask picks it, every later ask (from any process) reads the same one.
CREATE TABLE daily_puzzles (
    guild_id   INTEGER NOT NULL,
    day        TEXT    NOT NULL,
    puzzle_id  INTEGER NOT NULL REFERENCES puzzles (id),
    PRIMARY KEY (guild_id, day)
);
