import schema from '../../migrations/0008_archive_records.sql';
import { onFirstUse } from '../d1/schema';
import { storeKeyOf } from '../evidence/archive-reader';
import type { ReplaySource } from '../evidence/recording';

/**
 * Where uploaded evidence archives live, record by record, so that a replaying run reads the records it asks for
 * and never the whole archive: the R2 bucket ARCHIVES in deploys, or without that binding (offline, tests) D1.
 * Records are stored under their key (or its hash when long: storeKeyOf in src/evidence/archive-reader.ts) as their
 * response's JSON text.
 * An archive is written while its upload is read, becomes visible to runs only once the upload has been read whole
 * (`commit`), and is immutable after that; a refused upload is removed again (`abort`). The id is random.
 *
 * D1: a row in `archives` (owner, records, complete) and rows in `archive_records` keyed by (archive, record key, piece).
 * R2: `archives/<id>/chunk-<n>` (responses end to end, about 4 MB each), `archives/<id>/index-<s>` (record key →
 * [chunk, offset, length], about 2,000 records per shard) and `archives/<id>/meta` (owner, records, shards), written
 * last, so a replay reads meta, one index shard and a byte range of one chunk.
 */
export interface ArchiveBindings {
  DB: D1Database;
  ARCHIVES?: R2Bucket;
}

export interface ArchiveInfo {
  /** As for runs: the uploader's key hash (`key:…`), or `open` (run-index OPEN_OWNER) on an open server. */
  owner: string;
  records: number;
}

/** An archive being stored while its upload is read. */
export interface ArchiveWriter {
  readonly archiveId: string;
  /** Stores one record's response (JSON text); the caller has dropped repeated keys. */
  add(storeKey: string, response: string): Promise<void>;
  /** The upload was read whole and checked: runs may replay the archive from now on. */
  commit(records: number): Promise<void>;
  /** The upload was refused: whatever was stored of it goes. */
  abort(): Promise<void>;
}

const ARCHIVE_ID = /^arc_[0-9a-f]{32}$/;

export const isArchiveId = (id: string) => ARCHIVE_ID.test(id);
const newArchiveId = () => `arc_${crypto.randomUUID().replace(/-/g, '')}`;

export const createArchive = (env: ArchiveBindings, owner: string): Promise<ArchiveWriter> =>
  env.ARCHIVES ? r2Writer(env.ARCHIVES, owner) : d1Writer(env.DB, owner);

/** Who owns a stored, complete archive and how many records it holds; null when there is none by that id. */
export const archiveInfo = async (env: ArchiveBindings, id: string): Promise<ArchiveInfo | null> => {
  if (!isArchiveId(id)) return null;
  if (env.ARCHIVES) return r2Meta(env.ARCHIVES, id);
  await ensureTables(env.DB);
  return env.DB.prepare('SELECT owner, records FROM archives WHERE archive_id = ? AND complete = 1').bind(id).first<ArchiveInfo>();
};

/** A replay's view of an archive: each request's response is fetched by its key when the run asks for it. */
export const archiveReplaySource = (env: ArchiveBindings, id: string): ReplaySource => {
  const byKey = env.ARCHIVES ? r2Records(env.ARCHIVES, id) : d1Records(env.DB, id);
  return { get: async (key) => byKey(await storeKeyOf(key)) };
};

// ---- D1 (local) ----

/** A D1 value holds at most 2 MB; a piece of 400,000 characters stays under it whatever the characters. */
const PIECE_CHARS = 400_000;
/** Miniflare's D1 keeps about two copies of what one batch inserts (STACK.md), so an upload goes in small batches. */
const BATCH_ROWS = 500;
const BATCH_CHARS = 1_000_000;
/** D1 binds at most 100 parameters per statement: 25 rows of 4. */
const ROWS_PER_INSERT = 25;
/** An upload that never finished (the Worker died mid-read) is removed by a later upload after this long. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** Creates the tables on first use (same SQL as migrations/0008), so a fresh local database needs no migration step. */
const ensureTables = onFirstUse(schema);

const d1Writer = async (db: D1Database, owner: string): Promise<ArchiveWriter> => {
  await ensureTables(db);
  const stale = Date.now() - STALE_UPLOAD_MS;
  const staleIds = 'SELECT archive_id FROM archives WHERE complete = 0 AND created_at < ?';
  await db.batch([
    db.prepare(`DELETE FROM archive_records WHERE archive_id IN (${staleIds})`).bind(stale),
    db.prepare('DELETE FROM archives WHERE complete = 0 AND created_at < ?').bind(stale),
  ]);
  const archiveId = newArchiveId();
  await db.prepare('INSERT INTO archives (archive_id, owner, records, complete, created_at) VALUES (?, ?, 0, 0, ?)').bind(archiveId, owner, Date.now()).run();
  const insertRows = (n: number) => db.prepare(`INSERT INTO archive_records (archive_id, record_key, n, piece) VALUES ${Array(n).fill('(?, ?, ?, ?)').join(', ')}`);
  const insertFull = insertRows(ROWS_PER_INSERT);
  let rows: Array<[string, number, string]> = [];
  let chars = 0;
  const flush = async () => {
    if (!rows.length) return;
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const part = rows.slice(i, i + ROWS_PER_INSERT);
      const stmt = part.length === ROWS_PER_INSERT ? insertFull : insertRows(part.length);
      statements.push(stmt.bind(...part.flatMap(([storeKey, n, piece]) => [archiveId, storeKey, n, piece])));
    }
    rows = [];
    chars = 0;
    await db.batch(statements);
  };
  return {
    archiveId,
    add: async (storeKey, response) => {
      for (let at = 0, n = 0; at < response.length || n === 0; at += PIECE_CHARS, n++) {
        const piece = response.slice(at, at + PIECE_CHARS);
        rows.push([storeKey, n, piece]);
        chars += piece.length;
        if (rows.length >= BATCH_ROWS || chars >= BATCH_CHARS) await flush();
      }
    },
    commit: async (records) => {
      await flush();
      await db.prepare('UPDATE archives SET records = ?, complete = 1 WHERE archive_id = ?').bind(records, archiveId).run();
    },
    abort: async () => {
      rows = [];
      await db.batch([
        db.prepare('DELETE FROM archive_records WHERE archive_id = ?').bind(archiveId),
        db.prepare('DELETE FROM archives WHERE archive_id = ?').bind(archiveId),
      ]);
    },
  };
};

const d1Records =
  (db: D1Database, id: string) =>
  async (storeKey: string): Promise<string | undefined> => {
    if (!isArchiveId(id)) return undefined;
    await ensureTables(db);
    const { results } = await db.prepare('SELECT piece FROM archive_records WHERE archive_id = ? AND record_key = ? ORDER BY n').bind(id, storeKey).all<{ piece: string }>();
    return results.length ? results.map((r) => r.piece).join('') : undefined;
  };

// ---- R2 (deploys) ----

const CHUNK_BYTES = 4 * 1024 * 1024;
const RECORDS_PER_SHARD = 2_000;

type IndexEntry = [chunk: number, offset: number, length: number];
interface R2ArchiveMeta extends ArchiveInfo {
  shards: number;
  createdAt: string;
}

const prefix = (id: string) => `archives/${id}/`;
/** FNV-1a: which index shard holds a key; any spread will do, it only has to be the same on upload and replay. */
const shardOf = (storeKey: string, shards: number) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < storeKey.length; i++) h = Math.imul(h ^ storeKey.charCodeAt(i), 0x01000193);
  return (h >>> 0) % shards;
};

const r2Writer = async (bucket: R2Bucket, owner: string): Promise<ArchiveWriter> => {
  const archiveId = newArchiveId();
  const encoder = new TextEncoder();
  const index = new Map<string, IndexEntry>();
  let chunk = 0;
  let parts: Uint8Array[] = [];
  let size = 0;
  const putChunk = async () => {
    if (!size) return;
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.byteLength;
    }
    await bucket.put(`${prefix(archiveId)}chunk-${chunk}`, bytes);
    chunk++;
    parts = [];
    size = 0;
  };
  return {
    archiveId,
    add: async (storeKey, response) => {
      const bytes = encoder.encode(response);
      index.set(storeKey, [chunk, size, bytes.byteLength]);
      parts.push(bytes);
      size += bytes.byteLength;
      if (size >= CHUNK_BYTES) await putChunk();
    },
    commit: async (records) => {
      await putChunk();
      const shards = Math.max(1, Math.ceil(records / RECORDS_PER_SHARD));
      const shardEntries: Array<Record<string, IndexEntry>> = Array.from({ length: shards }, () => ({}));
      for (const [storeKey, entry] of index) shardEntries[shardOf(storeKey, shards)][storeKey] = entry;
      for (let s = 0; s < shards; s++) await bucket.put(`${prefix(archiveId)}index-${s}`, JSON.stringify(shardEntries[s]));
      const meta: R2ArchiveMeta = { owner, records, shards, createdAt: new Date().toISOString() };
      await bucket.put(`${prefix(archiveId)}meta`, JSON.stringify(meta));
    },
    abort: async () => {
      parts = [];
      for (let cursor: string | undefined; ; ) {
        const listed = await bucket.list({ prefix: prefix(archiveId), cursor });
        if (listed.objects.length) await bucket.delete(listed.objects.map((o) => o.key));
        if (!listed.truncated) break;
        cursor = listed.cursor;
      }
    },
  };
};

const r2Json = async <T>(bucket: R2Bucket, key: string): Promise<T | null> => {
  const obj = await bucket.get(key);
  return obj ? ((await obj.json()) as T) : null;
};

const r2Meta = async (bucket: R2Bucket, id: string): Promise<R2ArchiveMeta | null> => r2Json<R2ArchiveMeta>(bucket, `${prefix(id)}meta`);

const r2Records = (bucket: R2Bucket, id: string) => {
  // One source serves one step of a run: meta and the index shards it needs are read once per step.
  let meta: Promise<R2ArchiveMeta | null> | undefined;
  const shards = new Map<number, Promise<Record<string, IndexEntry> | null>>();
  return async (storeKey: string): Promise<string | undefined> => {
    if (!isArchiveId(id)) return undefined;
    const m = await (meta ??= r2Meta(bucket, id));
    if (!m) return undefined;
    const s = shardOf(storeKey, m.shards);
    if (!shards.has(s)) shards.set(s, r2Json<Record<string, IndexEntry>>(bucket, `${prefix(id)}index-${s}`));
    const entry = (await shards.get(s))?.[storeKey];
    if (!entry) return undefined;
    const [chunk, offset, length] = entry;
    const obj = await bucket.get(`${prefix(id)}chunk-${chunk}`, { range: { offset, length } });
    return obj ? obj.text() : undefined;
  };
};
