-- Reserved for the puzzles branch's migration (011_puzzles.sql), which takes this number
-- when the branches merge; this file is dropped then. Nothing to change here.
SELECT 1;
