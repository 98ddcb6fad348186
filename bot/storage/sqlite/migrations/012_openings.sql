-- Opening rules (engine.openings): a game and a challenge name theirs; a game keeps the
-- decisions taken in its opening (colour choices, offers) as space-separated tokens, its stones
-- being ordinary moves. Older rows are free openings with no decisions.
ALTER TABLE games ADD COLUMN opening TEXT NOT NULL DEFAULT 'free'
    CHECK (opening IN ('free', 'swap', 'swap2', 'rif'));
ALTER TABLE games ADD COLUMN decisions TEXT NOT NULL DEFAULT '';
ALTER TABLE challenges ADD COLUMN opening TEXT NOT NULL DEFAULT 'free'
    CHECK (opening IN ('free', 'swap', 'swap2', 'rif'));
