-- Small key/value facts about this installation (e.g. the hash of the last synced command tree).
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
