import migration from '../../migrations/0002_vectors.sql';
import { onFirstUse } from '../d1/schema';
import type { VectorIndex, VectorMatch, VectorRecord } from './types';

/**
 * A real vector index on D1 for offline dev and tests: vectors are stored as float32 bytes per
 * (namespace, id) and a query scores every vector of the namespace by cosine in JS (brute force).
 * Exact and simple; fine up to ~10⁴ vectors per namespace (a few-shot library or a page's chunks).
 * Beyond that, deploy with Vectorize.
 *
 * The table is created on first use (CREATE TABLE IF NOT EXISTS, the same SQL as migrations/0002), so a
 * fresh local database works without running `wrangler d1 migrations apply` first.
 * Vectors whose dimension differs from the query (another embedder wrote them) are skipped, not errors.
 */
export const localD1VectorIndex = (db: D1Database): VectorIndex => {
  const ready = () => ensureTable(db);
  return {
    name: 'local-d1',
    upsert: async (namespace, records) => {
      await ready();
      for (let i = 0; i < records.length; i += UPSERT_BATCH) {
        await db.batch(records.slice(i, i + UPSERT_BATCH).map((r) => upsertStatement(db, namespace, r)));
      }
    },
    query: async (namespace, vector, topK) => {
      await ready();
      const { results } = await db
        .prepare('SELECT id, dims, "values" AS v, metadata FROM vectors WHERE namespace = ?')
        .bind(namespace)
        .all<{ id: string; dims: number; v: ArrayBuffer | Uint8Array | number[]; metadata: string | null }>();
      const q = Float32Array.from(vector);
      const qNorm = Math.sqrt(dot(q, q));
      if (qNorm === 0 || topK <= 0) return [];
      const scored: VectorMatch[] = [];
      for (const row of results) {
        if (row.dims !== q.length) continue;
        const v = toFloat32(row.v);
        const norm = Math.sqrt(dot(v, v));
        const match: VectorMatch = { id: row.id, score: norm === 0 ? 0 : dot(q, v) / (qNorm * norm) };
        if (row.metadata) match.metadata = JSON.parse(row.metadata);
        scored.push(match);
      }
      scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      return scored.slice(0, topK);
    },
    has: async (namespace, ids) => {
      await ready();
      const found = new Set<string>();
      for (let i = 0; i < ids.length; i += HAS_BATCH) {
        const chunk = ids.slice(i, i + HAS_BATCH);
        const { results } = await db
          .prepare(`SELECT id FROM vectors WHERE namespace = ? AND id IN (${chunk.map(() => '?').join(',')})`)
          .bind(namespace, ...chunk)
          .all<{ id: string }>();
        for (const r of results) found.add(r.id);
      }
      return found;
    },
  };
};

// D1 allows at most 100 bound parameters per statement.
const HAS_BATCH = 90;
const UPSERT_BATCH = 50;

const ensureTable = onFirstUse(migration);

const upsertStatement = (db: D1Database, namespace: string, r: VectorRecord): D1PreparedStatement => {
  const values = Float32Array.from(r.values);
  return db
    .prepare(
      'INSERT INTO vectors (namespace, id, dims, "values", metadata) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (namespace, id) DO UPDATE SET dims = excluded.dims, "values" = excluded."values", metadata = excluded.metadata',
    )
    .bind(namespace, r.id, values.length, values.buffer, r.metadata ? JSON.stringify(r.metadata) : null);
};

// D1 hands BLOBs back as number[] (bytes) or an ArrayBuffer depending on the runtime version.
const toFloat32 = (blob: ArrayBuffer | Uint8Array | number[]): Float32Array => {
  const bytes = blob instanceof ArrayBuffer ? new Uint8Array(blob) : blob instanceof Uint8Array ? blob : Uint8Array.from(blob);
  const copy = new Uint8Array(bytes.byteLength - (bytes.byteLength % 4));
  copy.set(bytes.subarray(0, copy.length));
  return new Float32Array(copy.buffer);
};

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
