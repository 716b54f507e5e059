import * as z from 'zod';

/**
 * The settings that bound what upstream hosts may make the service do and what it asks of them: how long a host's
 * back-off may hold it, the MediaWiki APIs' concurrency, Wikimedia's per-minute request budget and the token that raises it, and how long good answers
 * are kept. Parsed with the rest of the configuration by src/config.ts, the only module that reads the environment.
 */

const wholeNumber = (name: string, example: string) => {
  const message = `${name} must be a whole number (e.g. ${example})`;
  return z.coerce.number({ message }).int({ message });
};

export const upstreamLimitVars = {
  /**
   * The longest any upstream's Retry-After (seconds or a date) or maxlag answer holds its host back, stored holds
   * included. Every limit these hosts publish is counted per minute (WDQS's query time and errors, Wikimedia's API
   * requests, model servers' requests and tokens), so a real wait is at most about 60 s; twice that honours each in
   * full, and a longer one (a hostile or broken front saying 999999) is cut to it instead of locking the host for days.
   */
  POLITENESS_MAX_BACKOFF_MS: wholeNumber('POLITENESS_MAX_BACKOFF_MS', '120000').min(1_000, { message: 'POLITENESS_MAX_BACKOFF_MS must be at least 1000' }).default(120_000),
  /**
   * Requests in flight at once to the MediaWiki APIs (both of Wikimedia's when they share a budget): Wikimedia's API
   * rate-limit guidance allows a client at most 3 concurrent requests; a mirror of your own may allow more.
   */
  MEDIAWIKI_CONCURRENCY: wholeNumber('MEDIAWIKI_CONCURRENCY', '3').positive({ message: 'MEDIAWIKI_CONCURRENCY must be positive (e.g. 3)' }).default(3),
  /**
   * Requests a minute to Wikipedia's and Wikidata's APIs together (Wikimedia counts a client across its projects).
   * Unset: 90 % of Wikimedia's published limit for this client for its own hosts, none for a mirror (src/evidence/live/politeness.ts).
   */
  MEDIAWIKI_REQUESTS_PER_MINUTE: wholeNumber('MEDIAWIKI_REQUESTS_PER_MINUTE', '180').positive({ message: 'MEDIAWIKI_REQUESTS_PER_MINUTE must be positive (e.g. 180)' }).optional(),
  /**
   * A Wikimedia OAuth 2.0 access token (a secret): sent as `Authorization: Bearer …` to Wikimedia's own API hosts only
   * (never to a mirror or the query service), for an authenticated client's request limit.
   */
  WIKIMEDIA_ACCESS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined)),
  /** How long the gates (or the Cache API, without them) keep a good live answer for every run; 0 keeps none. */
  EVIDENCE_CACHE_TTL_SECONDS: wholeNumber('EVIDENCE_CACHE_TTL_SECONDS', '86400')
    .min(0, { message: 'EVIDENCE_CACHE_TTL_SECONDS must be 0 (keep nothing) or more' })
    .max(30 * 86_400, { message: 'EVIDENCE_CACHE_TTL_SECONDS must be at most 2592000 (30 days)' })
    .default(86_400),
};
