-- Reserved for the openings branch's migration (008_openings.sql), which takes this number
-- when the branches merge; this file is dropped then. Nothing to change here.
SELECT 1;
