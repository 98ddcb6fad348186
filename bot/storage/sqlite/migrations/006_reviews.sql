-- The AI review of a finished game is cached next to it, so a second `/caro review`
-- (or a click on a board's Review button) answers at once instead of searching again. A review
-- depends only on the moves and the node limit it was made with (engine.review), so the node
-- limit is kept with it: a bot run with another limit reviews again.
CREATE TABLE reviews (
    game_id     INTEGER PRIMARY KEY REFERENCES games (id),
    node_limit  INTEGER NOT NULL CHECK (node_limit >= 1),
    -- engine.review.Review.to_dict() as JSON.
    data        TEXT    NOT NULL,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- A member's finished games in a server, newest first (replay's default and /caro history).
CREATE INDEX games_finished_by_x ON games (guild_id, x_user_id, id) WHERE status = 'finished';
CREATE INDEX games_finished_by_o ON games (guild_id, o_user_id, id) WHERE status = 'finished';
