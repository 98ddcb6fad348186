-- At most one AI-vs-AI game runs per channel, so a channel cannot be flooded
-- with boards that play themselves.

-- Databases from before this rule may hold several running AI-vs-AI games in one channel: the
-- newest keeps running, the others end as abandoned (no ratings are involved in those games).
UPDATE games
   SET status = 'abandoned',
       updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
       finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
 WHERE mode = 'watch' AND status = 'active'
   AND id NOT IN (SELECT MAX(id) FROM games WHERE mode = 'watch' AND status = 'active'
                  GROUP BY guild_id, channel_id);

CREATE UNIQUE INDEX games_one_watch_per_channel
    ON games (guild_id, channel_id) WHERE status = 'active' AND mode = 'watch';
