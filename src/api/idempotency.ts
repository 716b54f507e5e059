import * as z from 'zod';
import schema from '../../migrations/0007_idempotency.sql';
import { onFirstUse } from '../d1/schema';
import { OPEN_OWNER } from '../storage/run-index';
import { freshRunId, type RunIdClaim } from '../runs/create';
import { sha256Hex } from '../text/sha256';
import { runScope } from './auth';
import { HttpError } from './errors';

/**
 * `Idempotency-Key` on the routes that start paid work (POST /v1/answer, /v1/runs/{id}/fork, /v1/chat/completions).
 * The first request with a key claims a run id for it in D1; a retry with the same key and the same body within
 * 24 hours gets that run id back, so it reads (or streams) the same run and no second run starts. The same key with
 * another body is a 422. Keys are scoped to the caller's API key (the run owner), so two clients cannot collide.
 *
 * The claim is one D1 batch (a transaction): insert-if-absent, then read back whichever row won. Two identical
 * requests at once therefore agree on one run id; both then call the run object's `start`, which creates the run
 * once and is a no-op for the other. A request that died after claiming is healed by its retry the same way.
 */

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_DOC =
  'Retry-safe submission: the same key with the same body within 24 hours returns the run the first request started ' +
  '(no second run, no second model call; the response carries `idempotent-replayed: true`); the same key with a different body is a 422. ' +
  'Keys are scoped to the API key. 1–255 visible ASCII characters; a UUID is a good choice.';

export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, { message: 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)' })
    .optional()
    .meta({ description: IDEMPOTENCY_DOC }),
});

const ensureTable = onFirstUse(schema);

/** JSON with object keys sorted at every level, so a retry that orders its fields differently is the same body. */
const stableJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

interface ClaimRow {
  fingerprint: string;
  run_id: string;
}

/**
 * Claims `candidate` for (scope, key) unless a live claim exists. `operation` names the route (and its target run
 * for a fork), so one key reused on another route is a different request.
 */
export const claimRunId = async (
  db: D1Database,
  input: { scope: string; key: string; operation: string; body: unknown; now?: number },
  candidate: string,
): Promise<{ runId: string; replayed: boolean }> => {
  await ensureTable(db);
  const now = input.now ?? Date.now();
  const [keyHash, fingerprint] = await Promise.all([sha256Hex(input.key), sha256Hex(`${input.operation}\n${stableJson(input.body)}`)]);
  const results = await db.batch<ClaimRow>([
    db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').bind(now - IDEMPOTENCY_WINDOW_MS),
    db
      .prepare('INSERT OR IGNORE INTO idempotency_keys (scope, key_hash, fingerprint, run_id, created_at) VALUES (?, ?, ?, ?, ?)')
      .bind(input.scope, keyHash, fingerprint, candidate, now),
    db.prepare('SELECT fingerprint, run_id FROM idempotency_keys WHERE scope = ? AND key_hash = ?').bind(input.scope, keyHash),
  ]);
  const row = results[2]?.results[0];
  if (!row) throw new HttpError(500, 'internal_error', 'the Idempotency-Key could not be recorded; retry the request');
  if (row.fingerprint !== fingerprint) {
    throw new HttpError(
      422,
      'idempotency_key_reused',
      'this Idempotency-Key was used within the last 24 hours for a different request; send a new key for a new request',
    );
  }
  return { runId: row.run_id, replayed: row.run_id !== candidate };
};

/**
 * The run-id claim for a route: fresh without an Idempotency-Key header, else claimed for the caller's scope.
 * `c` is the route's context after auth (its caller) and header validation.
 */
export const idempotentRunId = (
  c: { env: Env; get(key: 'caller'): string | undefined },
  key: string | undefined,
  operation: string,
  body: unknown,
): RunIdClaim => {
  if (key === undefined) return freshRunId;
  const scope = runScope(c) ?? OPEN_OWNER;
  return (candidate) => claimRunId(c.env.DB, { scope, key, operation, body }, candidate);
};

/** Marks a response that replays an earlier request's run. */
export const REPLAYED_HEADER = 'idempotent-replayed';
