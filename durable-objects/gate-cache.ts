/** Answers larger than this are not kept (a SQLite value holds at most 2 MB). */
const MAX_ENTRY_CHARS = 1_000_000;
/** Cached text kept per gate; the least recently used entries go first. */
const MAX_CACHE_CHARS = 64 * 1024 * 1024;

/**
 * The answers a politeness gate keeps for every run, in its object's SQLite: each under the hash of its request, with
 * an expiry and its last use, at most 64 MB in all (least recently used out first). Only what the caller judged a good
 * answer is handed here (src/evidence/live/http.ts): an error body or a half-sent result never is.
 */
export class GateCache {
  private chars: number;

  constructor(private readonly sql: SqlStorage) {
    sql.exec('CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, body TEXT NOT NULL, chars INTEGER NOT NULL, expires INTEGER NOT NULL, used INTEGER NOT NULL)');
    this.chars = sql.exec<{ n: number | null }>('SELECT SUM(chars) AS n FROM answers').toArray()[0]?.n ?? 0;
  }

  get(key: string, now: number): string | undefined {
    const row = this.sql.exec<{ body: string; expires: number }>('SELECT body, expires FROM answers WHERE key = ?', key).toArray()[0];
    if (!row) return undefined;
    if (row.expires <= now) {
      this.drop(key);
      return undefined;
    }
    this.sql.exec('UPDATE answers SET used = ? WHERE key = ?', now, key);
    return row.body;
  }

  keep(key: string, body: string, expires: number, now: number) {
    if (body.length > MAX_ENTRY_CHARS) return;
    this.drop(key);
    while (this.chars + body.length > MAX_CACHE_CHARS) {
      const oldest = this.sql.exec<{ key: string }>('SELECT key FROM answers ORDER BY used LIMIT 1').toArray()[0];
      if (!oldest) break;
      this.drop(oldest.key);
    }
    this.sql.exec('INSERT INTO answers (key, body, chars, expires, used) VALUES (?, ?, ?, ?, ?)', key, body, body.length, expires, now);
    this.chars += body.length;
  }

  private drop(key: string) {
    const row = this.sql.exec<{ chars: number }>('SELECT chars FROM answers WHERE key = ?', key).toArray()[0];
    if (!row) return;
    this.sql.exec('DELETE FROM answers WHERE key = ?', key);
    this.chars -= row.chars;
  }
}
