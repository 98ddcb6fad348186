-- Whether the member moved the pan window of their board of a queued game between two servers:
-- the process that clicked a move then leaves that board to the process holding its server,
-- which remembers the window, rather than drawing it with the window that follows the moves.
ALTER TABLE queue_entries ADD COLUMN panned INTEGER NOT NULL DEFAULT 0 CHECK (panned IN (0, 1));
