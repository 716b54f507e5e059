import { seconds } from '../../net/politeness/policy';
import { averageOf, OverCapError } from '../../net/read-capped';
import { heldFor } from '../../net/retry-policy';
import { EvidenceError } from '../types';

/**
 * What an answer from a live host means: how long it asks every client to wait, whether its body is a good answer
 * of the expected shape (only those are cached), and the error a request ends with otherwise. Pure functions of what
 * was read, so the retry policy (http-retry.ts) and the client (http.ts) share one reading of every answer.
 */

/** One answer as read: its status, its text (an error page only in part), and the wait it asked every client for. */
export interface Exchange {
  status: number;
  text: string;
  /** The parsed body of a good answer. */
  data?: unknown;
  /** Why a 2xx body is not a good answer (an error body, a half-sent result, another shape); such a body is never cached. */
  problem?: string;
  /** Retry-After of a 429/503 or a MediaWiki maxlag answer, and why, for the notes of runs held by it. */
  backoffMs?: number;
  backoffReason?: string;
  maxlag?: boolean;
  fromCache?: boolean;
}

/** The top-level member a good answer has: MediaWiki's `query`, `parse` or `entities`; SPARQL results' `head`. */
export type Expect = 'query' | 'parse' | 'entities' | 'sparql';

/** A 429 or a lag answer without Retry-After still stops the host this long. */
export const DEFAULT_BACKOFF_MS = 5_000;

const isMaxlag = (res: Response, head: string) => res.headers.get('mediawiki-api-error') === 'maxlag' || /"code"\s*:\s*"maxlag"/.test(head.slice(0, 400));

/** The wait an answer asks of every client (429, a 503 with Retry-After, a maxlag answer), and why, for the gate. */
export const askedWait = (res: Response, text: string, retryAfterMs: number | undefined): { maxlag: boolean; backoffMs?: number; reason?: string } => {
  const maxlag = res.ok && isMaxlag(res, text);
  const backoffMs = maxlag ? (retryAfterMs ?? DEFAULT_BACKOFF_MS) : heldFor(res.status, retryAfterMs, DEFAULT_BACKOFF_MS);
  if (backoffMs === undefined) return { maxlag };
  return { maxlag, backoffMs, reason: maxlag ? 'replication lag (maxlag)' : `HTTP ${res.status} with Retry-After ${seconds(backoffMs)}` };
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** MediaWiki's error member (`{error: {code, info}}`), as a sentence, or undefined. */
const mediawikiError = (data: Record<string, unknown>): string | undefined => {
  if (!('error' in data)) return undefined;
  const e = data.error;
  if (!isObject(e)) return 'an error';
  const code = typeof e.code === 'string' ? e.code : 'unknown';
  const info = typeof e.info === 'string' ? e.info : '';
  return `the error ${code}${info ? `: ${info.slice(0, 200)}` : ''}`;
};

/**
 * Reads a 2xx body: its parsed JSON when it is a good answer of the expected shape, or what is wrong with it (a body
 * that is not JSON, as WDQS sends when a query fails after its results began; a MediaWiki `error`; a missing member).
 */
export const judgeBody = (text: string, expect: Expect | undefined): { data: unknown } | { problem: string } => {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const head = text.slice(0, 120).replace(/\s+/g, ' ').trim();
    return { problem: `a response that is not JSON${head ? ` (it begins "${head}")` : ''}` };
  }
  if (!expect) return { data };
  if (!isObject(data)) return { problem: 'a response that is not a JSON object' };
  const error = mediawikiError(data);
  if (error) return { problem: error };
  if (expect === 'sparql') {
    return isObject(data.head) && (isObject(data.results) || typeof data.boolean === 'boolean') ? { data } : { problem: 'no SPARQL results (no head and results)' };
  }
  return isObject(data[expect]) || Array.isArray(data[expect]) ? { data } : { problem: `an answer without its "${expect}" member` };
};

/** The error a request ends with when its last answer was not a good one. */
export const failureOf = (ex: Exchange, url: URL): EvidenceError => {
  if (ex.status >= 300 && ex.status < 400) {
    return new EvidenceError(`${url.host} answered with a redirect (${ex.status}); point the endpoint URL at the API itself.`, 'upstream');
  }
  if (ex.maxlag) return new EvidenceError(`${url.host} is lagging behind (maxlag) and asked clients to wait ${seconds(ex.backoffMs ?? DEFAULT_BACKOFF_MS)}.`, 'upstream');
  if (ex.status < 200 || ex.status >= 300) {
    const body = ex.text.slice(0, 300);
    const wait = ex.backoffMs !== undefined ? ` (it asked clients to wait ${seconds(ex.backoffMs)})` : '';
    return new EvidenceError(`${url.host} answered HTTP ${ex.status}${wait}${body ? `: ${body}` : ''}`, ex.status === 400 ? 'syntax' : 'upstream');
  }
  return new EvidenceError(`${url.host} sent ${ex.problem ?? 'an answer that could not be read'}; it was not kept, and the next request asks again.`, 'upstream');
};

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

/** The error for a request that failed before an answer came (timeout, network). */
export const sendFailure = (err: unknown, url: URL, timeoutMs: number): EvidenceError => {
  const name = (err as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return new EvidenceError(`${url.host} did not answer within ${Math.round(timeoutMs / 1000)} s.`, 'timeout');
  return new EvidenceError(`${url.host} could not be reached: ${(err as Error).message}`, 'upstream');
};

/** The error for a body that could not be read to its end: too large, too slow, or broken off. */
export const readFailure = (err: unknown, url: URL, maxBytes: number, timeoutMs: number): EvidenceError => {
  if (err instanceof OverCapError && err.trickle !== undefined) {
    // Each piece costs a round trip however small it is: a body sent a few bytes at a time is refused by their average.
    const t = err.trickle;
    return new EvidenceError(
      `${url.host} sent its answer in ${t.pieces.toLocaleString('en-US')} pieces averaging ${averageOf(t)} bytes (under the ${t.minPieceBytes} a piece must average); the answer was not read.`,
      'too_large',
    );
  }
  if (err instanceof OverCapError) {
    return new EvidenceError(
      `${url.host} sent more than ${sizeText(maxBytes)}; the answer was not read. Ask for less: a LIMIT, fewer variables, a narrower search.`,
      'too_large',
    );
  }
  const name = (err as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return new EvidenceError(`${url.host} did not finish its answer within ${Math.round(timeoutMs / 1000)} s.`, 'timeout');
  return new EvidenceError(`${url.host} broke off its answer: ${(err as Error).message}`, 'upstream');
};
