/** Answers larger than this are not kept (a SQLite value holds at most 2 MB). */
const MAX_ENTRY_BYTES = 1_000_000;
/** Cached text kept per gate; the least recently used entries go first. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Sizes are the UTF-8 bytes SQLite stores, not string length: a character outside ASCII takes two to four bytes, so
 * a cap counted in characters would let non-Latin text fill three times the space it names.
 */
const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/**
 * The answers a politeness gate keeps for every run, in its object's SQLite: each under the hash of its request, with
 * an expiry and its last use, at most 64 MiB of UTF-8 text in all (least recently used out first). Only what the caller judged a good
 * answer is handed here (src/evidence/live/http.ts): an error body or a half-sent result never is.
 */
export class GateCache {
  private bytes: number;

  /** Its table `cached_answers` is made by the gate's migrations (gate-migrations.ts, version 2). */
  constructor(private readonly sql: SqlStorage) {
    this.bytes = sql.exec<{ n: number | null }>('SELECT SUM(bytes) AS n FROM cached_answers').toArray()[0]?.n ?? 0;
  }

  get(key: string, now: number): string | undefined {
    const row = this.sql.exec<{ body: string; expires: number }>('SELECT body, expires FROM cached_answers WHERE key = ?', key).toArray()[0];
    if (!row) return undefined;
    if (row.expires <= now) {
      this.drop(key);
      return undefined;
    }
    this.sql.exec('UPDATE cached_answers SET used = ? WHERE key = ?', now, key);
    return row.body;
  }

  keep(key: string, body: string, expires: number, now: number) {
    const bytes = utf8Bytes(body);
    if (bytes > MAX_ENTRY_BYTES) return;
    this.drop(key);
    while (this.bytes + bytes > MAX_CACHE_BYTES) {
      const oldest = this.sql.exec<{ key: string }>('SELECT key FROM cached_answers ORDER BY used LIMIT 1').toArray()[0];
      if (!oldest) break;
      this.drop(oldest.key);
    }
    this.sql.exec('INSERT INTO cached_answers (key, body, bytes, expires, used) VALUES (?, ?, ?, ?, ?)', key, body, bytes, expires, now);
    this.bytes += bytes;
  }

  private drop(key: string) {
    const row = this.sql.exec<{ bytes: number }>('SELECT bytes FROM cached_answers WHERE key = ?', key).toArray()[0];
    if (!row) return;
    this.sql.exec('DELETE FROM cached_answers WHERE key = ?', key);
    this.bytes -= row.bytes;
  }
}
