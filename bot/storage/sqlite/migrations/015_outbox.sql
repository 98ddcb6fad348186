-- The outbox (bot/game/outbox_model.py): each post the bot makes on its own, written in the
-- transaction of the change that calls for it, then sent and marked sent. Times are unix seconds,
-- like the game clocks.
CREATE TABLE outbox (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER NOT NULL,
    channel_id     INTEGER NOT NULL,
    kind           TEXT    NOT NULL,
    -- What the renderer reads back, as a JSON object (ids, a round): the text is made at the send.
    payload        TEXT    NOT NULL,
    -- Sent with the message: Discord makes one message per nonce within a few minutes.
    nonce          TEXT    NOT NULL UNIQUE CHECK (length(nonce) <= 25),
    created_at     REAL    NOT NULL,
    -- The next try, not before; pushed back after each failed try.
    due_at         REAL    NOT NULL,
    -- The sender holding the row until then: another waits for the claim to run out.
    claimed_until  REAL,
    attempts       INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error     TEXT,
    message_id     INTEGER,
    sent_at        REAL,
    -- Given up for good: Discord will never take it (no access, no such channel).
    failed_at      REAL
);
-- The rows waiting to be sent, which every process's sender reads for its shard.
CREATE INDEX outbox_unsent ON outbox (due_at, id) WHERE sent_at IS NULL AND failed_at IS NULL;
-- A channel's rows waiting, in order: a new message waits for the earlier ones of its channel.
CREATE INDEX outbox_unsent_by_channel ON outbox (channel_id, id)
    WHERE sent_at IS NULL AND failed_at IS NULL;
-- The rows done with, which the sender prunes after a while.
CREATE INDEX outbox_sent ON outbox (sent_at) WHERE sent_at IS NOT NULL;
CREATE INDEX outbox_failed ON outbox (failed_at) WHERE failed_at IS NOT NULL;
