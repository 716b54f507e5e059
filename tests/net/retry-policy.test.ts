import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/evidence/live/http-retry';
import { EvidenceError } from '../../src/evidence/types';
import { modelVerdict } from '../../src/llm/model-retry';
import { classifyFailure, DEFAULT_BACKOFF_MS } from '../../src/llm/openai-failure';
import { backoffMs, waitBeforeRetry } from '../../src/net/retry-policy';

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
