import type { RateLimiter } from '../../durable-objects/rate-limiter';
import { HttpError } from './errors';

/**
 * Under `npm run dev`, deleting the state folder under a running server leaves workerd with the files it has open and
 * nothing else: the next Durable Object it opens fails with SQLITE_CANTOPEN in its log, and the Worker sees only
 * `internal error; reference = …`. To tell that apart from any other internal error, a local request that failed so
 * opens one fresh object: if that fails too, the storage is gone.
 */
const OPAQUE = /^internal error; reference = /;
const CANTOPEN = /SQLITE_CANTOPEN|unable to open database file/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const STORAGE_GONE_MESSAGE =
  "this server's local storage is gone: its state folder (.wrangler/state, or the --persist-to folder) was removed while it ran. Stop npm run dev and start it again (npm run reset refuses while a server runs, or stops it first with --stop)";

/** Whether a brand-new Durable Object can open its storage (it creates its table, which needs a new SQLite file). */
const storageOpens = async (env: Env): Promise<boolean> => {
  try {
    const ns = env.RATE_LIMITER as DurableObjectNamespace<RateLimiter>;
    await ns.get(ns.newUniqueId()).take(1);
    return true;
  } catch {
    return false;
  }
};

/** A 503 in our words when `err` came from local storage that was deleted under the server; otherwise undefined. */
export const storageGone = async (err: unknown, env: Env, url: string): Promise<HttpError | undefined> => {
  if (!(err instanceof Error)) return undefined;
  const local = LOOPBACK.has(new URL(url).hostname);
  const suspect = CANTOPEN.test(err.message) || (local && OPAQUE.test(err.message) && !(await storageOpens(env)));
  return suspect ? new HttpError(503, 'storage_unavailable', STORAGE_GONE_MESSAGE) : undefined;
};
