-- The members each member blocked (/caro block), in every server: a blocked member cannot
-- challenge them and the queue never pairs the two. One row per member and way round.
CREATE TABLE blocks (
    user_id    BIGINT NOT NULL,
    blocked_id BIGINT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, blocked_id),
    CHECK (user_id <> blocked_id)
);
-- "Did anyone block this member?", read the other way round from the key.
CREATE INDEX blocks_blocked ON blocks (blocked_id, user_id);
