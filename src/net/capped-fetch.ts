import { eventStream } from './event-stream';
import { readCapped, readHead, type CapOptions } from './read-capped';
import { parseRetryAfter } from './retry-after';

/** Bytes of an error page worth reading: enough for a JSON error, whose message is shown cut to a few hundred characters. */
const ERROR_PAGE_BYTES = 64 * 1024;

export interface FetchCaps {
  /** Bytes of one reply body. */
  maxBytes: number;
  /** The smallest average piece it may arrive in (see read-capped.ts). */
  minPieceBytes?: number;
}

/**
 * A fetch for an SDK we do not write (OpenAI's) whose every reply body we read ourselves, under the byte and trickle
 * caps and the signal the SDK passes: a body that keeps arriving would otherwise outlive a timeout that ends with the
 * headers. A streamed reply (`text/event-stream` with a 2xx) goes on as a stream cut at event ends, so the SDK's
 * event reader holds one event at a time; anything else is read whole first (an error page only its head) and handed
 * over as bytes, which the SDK parses once. Past a cap the SDK sees OverCapError (as the cause of its connection error).
 */
export const cappedFetch = (inner: typeof fetch, caps: FetchCaps): typeof fetch =>
  (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await inner(input, init);
    if (!res.body) return res;
    const options: CapOptions = { signal: init?.signal ?? undefined, ...(caps.minPieceBytes !== undefined ? { minPieceBytes: caps.minPieceBytes } : {}) };
    const streamed = res.ok && /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '');
    const body = streamed
      ? eventStream(res.body, caps.maxBytes, options)
      : res.ok
        ? await readCapped(res.body, caps.maxBytes, options)
        : await readHead(res.body, ERROR_PAGE_BYTES, options);
    // The length and encoding were the wire's; the body handed over is decoded and may be cut.
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    // An SDK that retries on its own (the embeddings client) reads these with parseFloat and Date.parse, which take
    // `0x10` or `1e1` for a wait: a value RFC 9110 does not allow is removed (and logged), so it is never obeyed.
    if (parseRetryAfter(headers.get('retry-after')) === undefined) headers.delete('retry-after');
    if (!/^\d+$/.test(headers.get('retry-after-ms') ?? '0')) headers.delete('retry-after-ms');
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  }) as typeof fetch;
