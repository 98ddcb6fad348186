-- The low-time warning of each game's turn clock, claimed once: a row names the clock (its
-- deadline) whose warning a process sent or is sending. A new clock has another deadline, so
-- each turn is warned once, a restart neither repeats a warning nor skips one still due, and
-- two processes claiming at the same moment get it once (the upsert's conflict check).
CREATE TABLE clock_warnings (
    game_id   BIGINT PRIMARY KEY REFERENCES games (id),
    deadline  DOUBLE PRECISION NOT NULL
);
