import { GateWaitTooLong, throughGate, type Gate, type Pass } from '../../net/politeness/pass';
import type { CallScope } from '../../net/scope';
import type { GateReport } from '../../net/politeness/policy';
import { readCapped, readHead } from '../../net/read-capped';
import { parseRetryAfter } from '../../net/retry';
import { EvidenceError } from '../types';
import { askedWait, judgeBody, readFailure, sendFailure, type Exchange, type Expect } from './http-answer';

/**
 * One attempt of the live client (http.ts): through the host's politeness gate when it has one, then the request,
 * its answer read under the time and byte caps, judged (http-answer.ts) and reported back to the gate.
 */

export interface ReadLimits {
  timeoutMs: number;
  maxBytes: number;
}

export interface AttemptSettings {
  /** The politeness gate of a URL's host, if it has one. */
  gateFor?: (url: URL) => Gate | undefined;
  /** Who the requests are for: its signal ends a wait at a gate, and the wait is told. */
  scope: CallScope;
  limits: ReadLimits;
  /** Seconds a good answer is kept in the gate's cache; 0 keeps none. */
  ttl: number;
}

/** One request as the client sends it: where, how, and the shape its answer must have. */
export interface LiveRequest {
  url: URL;
  init: RequestInit;
  expect: Expect | undefined;
}

const fetchOnce = async (url: URL, init: RequestInit, { timeoutMs }: ReadLimits): Promise<Response> => {
  try {
    return await fetch(url.toString(), { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw sendFailure(err, url, timeoutMs);
  }
};

// The per-attempt timeout signal also covers the body: an endpoint that sends headers and then trickles stays bounded.
// The byte cap bounds one that streams without end, or a query whose result is larger than any answer needs.
export const readText = async (res: Response, url: URL, { timeoutMs, maxBytes }: ReadLimits): Promise<string> => {
  try {
    return new TextDecoder().decode(await readCapped(res.body, maxBytes));
  } catch (err) {
    throw readFailure(err, url, maxBytes, timeoutMs);
  }
};

/** Reads one answer: a 2xx whole and judged, an error page only in part, a redirect not at all. */
const readExchange = async (res: Response, url: URL, expect: Expect | undefined, limits: ReadLimits): Promise<Exchange> => {
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    return { status: res.status, text: '' };
  }
  const text = res.ok ? await readText(res, url, limits) : new TextDecoder().decode(await readHead(res.body, 1_200).catch(() => new Uint8Array(0)));
  const wait = askedWait(res, text, parseRetryAfter(res.headers.get('retry-after')));
  const exchange: Exchange = { status: res.status, text, maxlag: wait.maxlag, backoffMs: wait.backoffMs, backoffReason: wait.reason };
  if (res.ok && !wait.maxlag) Object.assign(exchange, judgeBody(text, expect));
  return exchange;
};

/** The gate's answer: a cached body, or a pass to send; a wait longer than the gate allows is a back-off error. */
const enterGate = async (gate: Gate, scope: CallScope, cacheKey: string | undefined): Promise<Pass> => {
  try {
    return await throughGate(gate, scope, cacheKey);
  } catch (err) {
    if (err instanceof GateWaitTooLong) throw new EvidenceError(err.message, 'backoff');
    throw err;
  }
};

/** The request sent and its answer read, with its timing, status and any good answer (to cache) told to `leave`. */
const sendReported = async (s: AttemptSettings, r: LiveRequest, cacheKey: string | undefined, leave: ((report: GateReport) => Promise<void>) | undefined): Promise<Exchange> => {
  const started = Date.now();
  const report: GateReport = { ms: 0, status: 0 };
  try {
    const res = await fetchOnce(r.url, r.init, s.limits);
    report.status = res.status;
    const ex = await readExchange(res, r.url, r.expect, s.limits);
    [report.backoffMs, report.backoffReason] = [ex.backoffMs, ex.backoffReason];
    if (ex.problem !== undefined) report.failed = true;
    else if (ex.data !== undefined && cacheKey && s.ttl > 0) [report.body, report.ttlSeconds, report.cacheKey] = [ex.text, s.ttl, cacheKey];
    return ex;
  } finally {
    report.ms = Date.now() - started;
    await leave?.(report).catch(() => {});
  }
};

/**
 * One attempt: through the host's gate when it has one, then the request, its answer read, judged and reported.
 * `fresh` passes the gate's cache by: an entry that is not a good answer (kept before answers were judged) is
 * asked again, and the good answer replaces it.
 */
export const attemptOnce = async (s: AttemptSettings, r: LiveRequest, cacheKey: string | undefined, fresh = false): Promise<Exchange> => {
  const gate = s.gateFor?.(r.url);
  if (!gate) return sendReported(s, r, cacheKey, undefined);
  const pass = await enterGate(gate, s.scope, fresh ? undefined : cacheKey);
  if (pass.kind === 'granted') return sendReported(s, r, cacheKey, pass.leave);
  const judged = judgeBody(pass.body, r.expect);
  if ('problem' in judged) return attemptOnce(s, r, cacheKey, true);
  return { status: 200, text: pass.body, fromCache: true, data: judged.data };
};
