-- Cross-server queue (issue 39, stage 2). A game's boards in servers other than its own: the
-- game's row keeps its first board (its server, channel and message); a queued game between two
-- servers has one row here, for the member of the other server. `message_id` is NULL until the
-- board is posted: the row is the intent to post it, written with the pairing.
CREATE TABLE game_boards (
    game_id     BIGINT NOT NULL REFERENCES games (id),
    guild_id    BIGINT NOT NULL,
    channel_id  BIGINT NOT NULL,
    user_id     BIGINT NOT NULL,
    message_id  BIGINT,
    PRIMARY KEY (game_id, guild_id)
);
CREATE INDEX game_boards_unposted ON game_boards (guild_id) WHERE message_id IS NULL;
-- Whether the server's members may be paired with members of other servers (/caro settings).
ALTER TABLE guild_settings ADD COLUMN cross_server BOOLEAN NOT NULL DEFAULT TRUE;
-- The member's display name when they joined: what a board in another server calls them.
ALTER TABLE queue_entries ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
