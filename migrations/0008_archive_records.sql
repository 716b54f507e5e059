-- Uploaded evidence archives (POST /v1/archives) when the deploy has no R2 bucket ARCHIVES: the local stand-in.
-- An archive is a row of `archives` (its owner, as for runs: a key hash `key:…` or `open`) and one row per record
-- piece in `archive_records`, keyed by the record's key (its hash when long), so a replaying run reads the records it asks for and
-- nothing else. A response is stored as JSON in pieces of at most 400,000 characters (a D1 value holds at most 2 MB).
-- `complete` turns 1 when the upload has been read to the end and checked; until then no run sees the archive.
-- Archives of the earlier single-text layout (0005, archive_pieces) are not read any more: upload them again.
-- Applied by wrangler d1 migrations, and also at first use by src/storage/archives.ts, so every statement must be safe to repeat.
CREATE TABLE IF NOT EXISTS archives (
  archive_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  records INTEGER NOT NULL,
  complete INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS archive_records (
  archive_id TEXT NOT NULL,
  record_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  piece TEXT NOT NULL,
  PRIMARY KEY (archive_id, record_key, n)
) WITHOUT ROWID;
DROP TABLE IF EXISTS archive_pieces;
