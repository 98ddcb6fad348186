-- A challenge may ask for a casual game (no rating, takebacks allowed): the game it becomes is
-- rated only if the challenge asked for a rated one and the board is big enough.
ALTER TABLE challenges ADD COLUMN rated BOOLEAN NOT NULL DEFAULT TRUE;
