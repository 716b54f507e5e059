import type { MiddlewareHandler } from 'hono';
import { loadConfig } from '../config';
import { sha256, sha256Hex } from '../text/sha256';
import type { CallerVariables } from './caller';
import { HttpError } from './errors';
import { rateLimited, takeToken } from './rate-limit';

/**
 * Compares the presented key with every configured key in constant time: both sides are hashed to equal-length
 * digests and compared with timingSafeEqual, and the loop never exits early, so timing tells nothing about
 * which key or how many characters matched.
 */
export const matchesAnyKey = async (presented: string, keys: string[]): Promise<boolean> => {
  const candidate = await sha256(presented);
  let match = false;
  for (const key of keys) {
    const equal = crypto.subtle.timingSafeEqual(candidate, await sha256(key));
    match = match || equal;
  }
  return match;
};

const bearerToken = (header: string | undefined): string | undefined => {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return m?.[1];
};

/** The client's IP as Cloudflare reports it; local dev has none, so every anonymous caller shares one bucket. */
export const clientAddress = (headers: { header(name: string): string | undefined }) =>
  headers.header('cf-connecting-ip') ?? 'unknown';

/**
 * Bearer auth for /v1/*. With API_KEYS empty (local development) the API is open and the caller is named by IP.
 * The caller id is a hash of the key, so the key itself never reaches the limiter's storage or a log.
 */
export const requireApiKey = (): MiddlewareHandler<{ Bindings: Env; Variables: CallerVariables }> => async (c, next) => {
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  if (!config.API_KEYS.length) {
    c.set('caller', `ip:${clientAddress(c.req)}`);
    return next();
  }
  const token = bearerToken(c.req.header('authorization'));
  const challenge = { 'www-authenticate': 'Bearer realm="humaniq"' };
  // A failed attempt costs the client's address a token of its bucket, so a flood of guesses is throttled
  // (loopback included: with keys configured nobody is exempt from paying for a wrong one).
  const refuse = async (message: string): Promise<never> => {
    const verdict = await takeToken(c.env, `ip:${clientAddress(c.req)}`, config.RATE_LIMIT_PER_MINUTE);
    if (verdict && !verdict.allowed) throw rateLimited(config.RATE_LIMIT_PER_MINUTE, verdict);
    throw new HttpError(401, 'unauthorized', message, challenge);
  };
  if (!token) return refuse('this API needs a key: send "Authorization: Bearer <key>"');
  if (!(await matchesAnyKey(token, config.API_KEYS))) return refuse('the API key is not valid');
  c.set('caller', `key:${(await sha256Hex(token)).slice(0, 32)}`);
  return next();
};

/**
 * Whose runs a caller may list, read and cancel: its own (`key:<hash>`) when the API has keys; every run
 * (undefined) when it is open. Runs are stored with this value as their owner, so the key itself is never stored.
 */
export const runScope = (c: { get(key: 'caller'): string | undefined }): string | undefined => {
  const caller = c.get('caller');
  return caller?.startsWith('key:') ? caller : undefined;
};
