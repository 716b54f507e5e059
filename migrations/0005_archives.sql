-- Uploaded evidence archives (POST /v1/archives) when the deploy has no R2 bucket ARCHIVES: the local stand-in.
-- An archive is stored as JSONL text in pieces of at most 400,000 characters (a D1 value holds at most 2 MB).
-- Applied by wrangler d1 migrations, and also at first use by src/storage/archives.ts, so every statement must be safe to repeat.
CREATE TABLE IF NOT EXISTS archive_pieces (
  archive_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  piece TEXT NOT NULL,
  PRIMARY KEY (archive_id, n)
);
