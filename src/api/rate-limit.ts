import type { MiddlewareHandler } from 'hono';
import type { RateLimiter, TakeResult } from '../../durable-objects/rate-limiter';
import { loadConfig } from '../config';
import type { CallerVariables } from './caller';
import { HttpError } from './errors';

/**
 * Per-caller token bucket (RATE_LIMIT_PER_MINUTE, default 60) kept in the RATE_LIMITER Durable Object.
 * Runs after auth, so the bucket is the key's hash (or the client IP when the API is open).
 * If the limiter itself is unreachable the request goes through: a broken limiter must not take the API down.
 */
/**
 * With the API open (no API_KEYS), requests without a client IP or from loopback come from local development
 * (wrangler dev, the eval CLI, browser tests): one shared bucket would throttle them all, so they are not limited.
 * Behind Cloudflare every request carries its client's address.
 */
const LOCAL_CALLERS = new Set(['ip:unknown', 'ip:127.0.0.1', 'ip:::1']);

/** Takes one token from the caller's bucket; undefined when the limiter cannot be reached (the request goes on). */
export const takeToken = async (env: Env, caller: string, limit: number): Promise<TakeResult | undefined> => {
  try {
    const ns = env.RATE_LIMITER as DurableObjectNamespace<RateLimiter>;
    return (await ns.get(ns.idFromName(caller)).take(limit)) as TakeResult;
  } catch (err) {
    console.warn('rate limiter unavailable; request allowed', err instanceof Error ? err.name : typeof err);
    return undefined;
  }
};

export const rateLimited = (limit: number, result: TakeResult) =>
  new HttpError(429, 'rate_limited', `over the limit of ${limit} requests per minute; retry in ${result.retryAfterSeconds} s`, {
    'retry-after': String(result.retryAfterSeconds),
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': '0',
  });

export const rateLimit = (): MiddlewareHandler<{ Bindings: Env; Variables: CallerVariables }> => async (c, next) => {
  const config = loadConfig(c.env as unknown as Record<string, unknown>);
  const limit = config.RATE_LIMIT_PER_MINUTE;
  const caller = c.get('caller') ?? 'ip:unknown';
  if (LOCAL_CALLERS.has(caller)) return next();
  const result = await takeToken(c.env, caller, limit);
  if (result && !result.allowed) throw rateLimited(limit, result);
  await next();
  if (result) {
    c.header('x-ratelimit-limit', String(limit));
    c.header('x-ratelimit-remaining', String(result.remaining));
  }
};
