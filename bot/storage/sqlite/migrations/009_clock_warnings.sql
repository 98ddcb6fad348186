-- The low-time warning of each game's turn clock, claimed once: a row names the clock (its
-- deadline) whose warning a process sent or is sending. A new clock has another deadline, so
-- each turn is warned once, a restart neither repeats a warning nor skips one still due, and
-- the games table is not written for it.
CREATE TABLE clock_warnings (
    game_id   INTEGER PRIMARY KEY REFERENCES games (id),
    deadline  REAL    NOT NULL
);
