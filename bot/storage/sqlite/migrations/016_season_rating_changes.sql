-- Each member's season rating before and after each rated game, written in the transaction that
-- moves it (like rating_changes for the all-time ratings), so /caro stats can draw the season's
-- line. Seasons played before this table existed have no such rows: their lines start here.
-- `id` counts the writes: a member's changes are written one after another under the lock on
-- their season row, so it orders them exactly, as games finishing at once may not be by time.
CREATE TABLE season_rating_changes (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id   INTEGER NOT NULL REFERENCES games (id),
    guild_id  INTEGER NOT NULL,
    season    TEXT    NOT NULL,
    user_id   INTEGER NOT NULL,
    mode      TEXT    NOT NULL,
    before    REAL    NOT NULL,
    after     REAL    NOT NULL,
    UNIQUE (game_id, user_id)
);
CREATE INDEX season_rating_changes_member
    ON season_rating_changes (guild_id, season, user_id, mode, id);

-- A member's all-time rating changes in one scope and mode, read for the same chart.
CREATE INDEX rating_changes_member ON rating_changes (scope, user_id, mode);
