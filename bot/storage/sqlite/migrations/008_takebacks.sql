-- Takebacks (bot/game/takebacks.py): how many a game has had, so a game has at most a few, and a
-- member's request to take their last move back while the other member answers it. The request
-- is kept with the game so it outlives a restart; it names the move count it was asked at, so any
-- further move (or the game ending) leaves it answering nothing.
ALTER TABLE games ADD COLUMN takebacks INTEGER NOT NULL DEFAULT 0 CHECK (takebacks >= 0);
-- The move count at which a takeback was last asked (NULL: never), and whether that request
-- still waits for its answer: a declined one is not asked again at the same move count.
ALTER TABLE games ADD COLUMN takeback_asked INTEGER CHECK (takeback_asked >= 0);
ALTER TABLE games ADD COLUMN takeback_open INTEGER NOT NULL DEFAULT 0
    CHECK (takeback_open IN (0, 1));
