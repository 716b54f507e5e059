import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/evidence/live/http-retry';
import { EvidenceError } from '../../src/evidence/types';
import { modelVerdict } from '../../src/llm/model-retry';
import { classifyFailure, DEFAULT_BACKOFF_MS } from '../../src/llm/openai-failure';
import { backoffMs, waitBeforeRetry } from '../../src/net/retry-policy';
import { parseRetryAfter } from '../../src/net/retry-after';

/**
 * The one retry policy of the model providers and the live evidence client (src/net/retry-policy.ts), read through
 * the two classifiers that feed it: what a model server's error and what an evidence host's answer say about the
 * next attempt. The providers' and the live client's own tests drive the same rules end to end.
 */

const sdkError = (status: number, retryAfter?: string) =>
  APIError.generate(status, { error: { message: 'slow down' } }, undefined, new Headers(retryAfter ? { 'retry-after': retryAfter } : {}));
const modelWait = (err: unknown, attempt: number, gated: boolean) =>
  waitBeforeRetry(modelVerdict(classifyFailure(err).error, DEFAULT_BACKOFF_MS), attempt, { gated, backoff: (n, v) => backoffMs(n, v.retryAfterMs) });

describe('the shared retry policy', () => {
  it('a model server that says 429 with Retry-After: the gate keeps the wait when there is one, the caller otherwise', () => {
    const failure = classifyFailure(sdkError(429, '3'));
    expect(failure.hold).toEqual({ ms: 3_000, reason: 'HTTP 429 with Retry-After 3.0 s' });
    expect(modelWait(sdkError(429, '3'), 0, true)).toBe(0);
    expect(modelWait(sdkError(429, '3'), 0, false)).toBe(3_000);
  });

  it('a 429 without Retry-After holds every run for the default; a 503 without one holds nobody but is tried again', () => {
    expect(classifyFailure(sdkError(429)).hold?.ms).toBe(DEFAULT_BACKOFF_MS);
    expect(classifyFailure(sdkError(503)).hold).toBeUndefined();
    const wait = modelWait(sdkError(503), 1, true);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(500);
  });

  it('a 400 and a 401 are final; a connection failure is not', () => {
    expect(modelWait(sdkError(400), 0, false)).toBeUndefined();
    expect(modelWait(sdkError(401), 0, true)).toBeUndefined();
    expect(modelWait(new APIConnectionError({ message: 'ECONNREFUSED' }), 0, false)).toBeGreaterThan(0);
  });

  it('an evidence host: a hold under a gate costs no wait here, a longer one than allowed without a gate ends the retries', () => {
    const lagging = { ok: true as const, value: { status: 200, text: '', maxlag: true, backoffMs: 9_000 } };
    expect(retryDelay(lagging, 0, { gated: true, maxWaitMs: 5_000 })).toBe(0);
    expect(retryDelay(lagging, 0, { gated: false, maxWaitMs: 5_000 })).toBeUndefined();
    expect(retryDelay({ ok: true, value: { status: 429, text: '', backoffMs: 2_000 } }, 0, { gated: false, maxWaitMs: 5_000 })).toBe(2_000);
  });

  it('an evidence host: a network failure backs off, capped; a refusal and a 2xx that is no good answer are final', () => {
    const down = { ok: false as const, error: new EvidenceError('could not be reached', 'upstream') };
    expect([0, 1, 2, 6].map((n) => retryDelay(down, n, { gated: false, maxWaitMs: 5_000 }))).toEqual([250, 500, 1_000, 5_000]);
    expect(retryDelay({ ok: false, error: new EvidenceError('not allowed', 'refused') }, 0, { gated: false, maxWaitMs: 5_000 })).toBeUndefined();
    expect(retryDelay({ ok: true, value: { status: 200, text: 'oops', problem: 'not JSON' } }, 0, { gated: false, maxWaitMs: 5_000 })).toBeUndefined();
  });
});

describe('Retry-After as RFC 9110 defines it (issue 41, item 4)', () => {
  const now = Date.UTC(1994, 10, 6, 8, 49, 0);
  const ignored: string[] = [];
  const parse = (v: string | null) => parseRetryAfter(v, { now, onIgnored: (x) => ignored.push(x) });

  it('takes delay-seconds (digits only) and the three HTTP-date forms, a past date as 0', () => {
    expect(parse('120')).toBe(120_000);
    expect(parse(' 0 ')).toBe(0);
    expect(parse('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(37_000);
    expect(parse('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(37_000);
    expect(parse('Sun Nov  6 08:49:37 1994')).toBe(37_000);
    expect(parse('Sat, 05 Nov 1994 08:49:37 GMT')).toBe(0);
    expect(parse(null)).toBeUndefined();
    expect(ignored).toEqual([]);
  });

  it('ignores, and reports, everything Number() or Date.parse() would have read as a wait', () => {
    const junk = ['0x10', '0o7', '0b11', '1e1', '1.5', '-5', '+5', 'Infinity', 'tomorrow', 'Mon, 06 Nov 1994 08:49:37 GMT', 'Sun, 31 Feb 1994 08:49:37 GMT', '06 Nov 1994 08:49:37 GMT'];
    for (const v of junk) expect(parse(v)).toBeUndefined();
    expect(ignored).toEqual(junk);
  });

  it('a model server that says 429 with a malformed Retry-After holds for the default, as if it had said none', () => {
    expect(classifyFailure(sdkError(429, '0x10')).hold).toEqual({ ms: DEFAULT_BACKOFF_MS, reason: 'HTTP 429' });
  });
});
