-- Rating seasons (bot/game/seasons.py). A server's season length; NULL: it never chose one, and
-- the default applies.
ALTER TABLE guild_settings ADD COLUMN season_length TEXT
    CHECK (season_length IN ('monthly', 'quarterly', 'off'));

-- Each member's rating and record per server, season and mode, written in the transaction that
-- finishes a rated game, like the all-time standings. Rows are never deleted: a past season's
-- rows are its final standings. `starts` (the season's first day, UTC) orders seasons whose
-- names come from different season lengths.
CREATE TABLE season_standings (
    guild_id  INTEGER NOT NULL,
    season    TEXT    NOT NULL,
    starts    TEXT    NOT NULL,
    user_id   INTEGER NOT NULL,
    mode      TEXT    NOT NULL,
    rating    REAL    NOT NULL,
    wins      INTEGER NOT NULL DEFAULT 0,
    draws     INTEGER NOT NULL DEFAULT 0,
    losses    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, season, user_id, mode)
);
CREATE INDEX season_standings_rank ON season_standings (guild_id, season, mode, rating DESC);
CREATE INDEX season_standings_member ON season_standings (guild_id, user_id, mode, starts DESC);
