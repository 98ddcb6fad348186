-- A server's default language; NULL: not set (members' own language or Discord's decides).
ALTER TABLE guild_settings ADD COLUMN language TEXT;

-- What each member chose for themselves, in every server. A member without a row has the
-- defaults (bot.game.model.MemberSettings()).
CREATE TABLE member_settings (
    user_id         INTEGER PRIMARY KEY,
    theme           TEXT,
    turn_pings      INTEGER NOT NULL DEFAULT 1 CHECK (turn_pings IN (0, 1)),
    clock_warnings  INTEGER NOT NULL DEFAULT 1 CHECK (clock_warnings IN (0, 1)),
    language        TEXT
);
