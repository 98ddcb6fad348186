-- A member's games played from their board in another server than the game's own (a queued game
-- between two servers): their /caro history there, newest first.
CREATE INDEX game_boards_by_member ON game_boards (guild_id, user_id, game_id);
