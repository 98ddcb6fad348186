-- The queue for an opponent (/caro queue): one row per time a member joined it. `status` is
-- waiting until the member is paired (partner_id, paired_at, and the game made with the pairing)
-- or leaves (left_at). Rows stay
-- after that: the pairs of the last hour are read back so two members do not keep meeting.
CREATE TABLE queue_entries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    message_id   INTEGER,
    user_id      INTEGER NOT NULL,
    rows         INTEGER NOT NULL,
    cols         INTEGER NOT NULL,
    k            INTEGER NOT NULL,
    rule         TEXT    NOT NULL,
    rated        INTEGER NOT NULL,
    turn_seconds REAL    NOT NULL,
    local        INTEGER NOT NULL,
    rating       REAL    NOT NULL,
    locale       TEXT    NOT NULL,
    joined_at    REAL    NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'waiting'
                 CHECK (status IN ('waiting', 'paired', 'left')),
    partner_id   INTEGER,
    paired_at    REAL,
    left_at      REAL,
    game_id      INTEGER REFERENCES games (id)
);
-- One waiting entry per member, whoever writes it.
CREATE UNIQUE INDEX queue_one_waiting_entry ON queue_entries (user_id) WHERE status = 'waiting';
CREATE INDEX queue_entries_waiting ON queue_entries (status, joined_at);
CREATE INDEX queue_entries_paired ON queue_entries (user_id, paired_at) WHERE status = 'paired';
CREATE INDEX queue_entries_game ON queue_entries (game_id) WHERE game_id IS NOT NULL;
