import schema from '../../migrations/0005_archives.sql';
import { onFirstUse } from '../d1/schema';

/**
 * Where uploaded evidence archives live: the R2 bucket ARCHIVES in deploys (no size limit that matters here), or,
 * without that binding (offline, tests), D1 in pieces. Archives are immutable once stored; the id is random.
 */
export interface ArchiveBindings {
  DB: D1Database;
  ARCHIVES?: R2Bucket;
}

const PIECE_CHARS = 400_000;
const ARCHIVE_ID = /^arc_[0-9a-f]{32}$/;

export const isArchiveId = (id: string) => ARCHIVE_ID.test(id);
export const newArchiveId = () => `arc_${crypto.randomUUID().replace(/-/g, '')}`;

/** Creates the table on first use, so a fresh local database needs no migration step. */
const ensureTable = onFirstUse(schema);

const r2Key = (id: string) => `archives/${id}.jsonl`;

export const storeArchive = async (env: ArchiveBindings, id: string, text: string): Promise<void> => {
  if (env.ARCHIVES) {
    await env.ARCHIVES.put(r2Key(id), text, { httpMetadata: { contentType: 'application/x-ndjson' } });
    return;
  }
  await ensureTable(env.DB);
  const statements: D1PreparedStatement[] = [];
  for (let i = 0, n = 0; i < text.length || n === 0; i += PIECE_CHARS, n++) {
    statements.push(env.DB.prepare('INSERT INTO archive_pieces (archive_id, n, piece) VALUES (?, ?, ?)').bind(id, n, text.slice(i, i + PIECE_CHARS)));
  }
  // A batch is one transaction: an archive is stored whole or not at all.
  await env.DB.batch(statements);
};

/** The archive's JSONL text, or null when there is no such archive. */
export const loadArchive = async (env: ArchiveBindings, id: string): Promise<string | null> => {
  if (!isArchiveId(id)) return null;
  if (env.ARCHIVES) {
    const obj = await env.ARCHIVES.get(r2Key(id));
    return obj ? obj.text() : null;
  }
  await ensureTable(env.DB);
  const rows = await env.DB.prepare('SELECT piece FROM archive_pieces WHERE archive_id = ? ORDER BY n').bind(id).all<{ piece: string }>();
  return rows.results.length ? rows.results.map((r) => r.piece).join('') : null;
};
