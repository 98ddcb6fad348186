-- A server's default language; NULL: not set (members' own language or Discord's decides).
ALTER TABLE guild_settings ADD COLUMN language TEXT;

-- What each member chose for themselves, in every server. A member without a row has the
-- defaults (bot.game.model.MemberSettings()).
CREATE TABLE member_settings (
    user_id         BIGINT  PRIMARY KEY,
    theme           TEXT,
    turn_pings      BOOLEAN NOT NULL DEFAULT TRUE,
    clock_warnings  BOOLEAN NOT NULL DEFAULT TRUE,
    language        TEXT
);
