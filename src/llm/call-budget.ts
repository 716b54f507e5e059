import { averageOf, MIN_PIECES, OverCapError, type Trickle } from '../net/read-capped';
import { LLMError } from './types';

/** What one model call may take: bytes of reply (LLM_MAX_RESPONSE_BYTES) and time, headers and body together (LLM_TIMEOUT_MS). */
export interface CallBudget {
  maxBytes: number;
  timeoutMs: number;
}

/**
 * The smallest average piece of a model's reply. A model's event stream comes one event (100–200 bytes) per token,
 * and a server may write each event in several writes (the `data: ` prefix, the JSON, the blank line: about 50 bytes
 * each). 32 bytes passes any such pattern; a reply of a few bytes per write is a trickle, refused after MIN_PIECES
 * pieces. At 32, a reply at the 1 MiB byte cap costs at most 32,768 pieces.
 */
export const REPLY_MIN_PIECE_BYTES = 32;

export const timeoutError = (ms: number) =>
  new LLMError(`the model server did not finish its reply within ${ms} ms (LLM_TIMEOUT_MS)`, undefined, true, 'llm_timeout');

// Retried once at most (see retryBudget): a sampling model may not run away twice, a broken server will.
export const tooLargeError = (bytes: number, trickle?: Trickle) =>
  new LLMError(
    trickle === undefined
      ? `the model server's reply passed ${bytes} bytes (LLM_MAX_RESPONSE_BYTES); it was not read further`
      : `the model server's reply came in ${trickle.pieces} pieces averaging ${averageOf(trickle)} bytes (${trickle.bytes} bytes in all): a trickle, since past the first ${MIN_PIECES} pieces a reply's pieces must average at least ${trickle.minPieceBytes} bytes; it was not read further`,
    undefined,
    true,
    'llm_response_too_large',
  );

/** The cap an error (or what it wraps: the SDK wraps what its fetch threw) says was passed. */
const overCap = (err: unknown): OverCapError | undefined => {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OverCapError) return e;
  }
  return undefined;
};

/**
 * One attempt's deadline. Its signal aborts at the deadline or when the caller's does, and is what the reply body is
 * read under; the SDK's own `timeout` stops at the headers, and its stream reader ends quietly on an abort, so the
 * attempt asks `cutShort()` after reading and `explain()` when something was thrown.
 */
export const startAttempt = (budget: CallBudget, outer?: AbortSignal) => {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(timeoutError(budget.timeoutMs)), budget.timeoutMs);
  return {
    signal: outer ? AbortSignal.any([outer, deadline.signal]) : deadline.signal,
    /** Throws when the reply was cut short by the deadline or the caller, even if the reader returned normally. */
    cutShort(): void {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      outer?.throwIfAborted();
    },
    /** The error to report for what the attempt threw: the deadline and the byte cap win over however the SDK wrapped them. */
    explain(err: unknown): unknown {
      if (outer?.aborted) return outer.reason;
      if (deadline.signal.aborted) return deadline.signal.reason;
      const over = overCap(err);
      if (over) return tooLargeError(budget.maxBytes, over.trickle);
      return err;
    },
    end: () => clearTimeout(timer),
  };
};

/** For replies handed over already read (a binding's parsed output): at least one byte per character, so over is over. */
export const checkTextSize = (text: string, maxBytes: number): string => {
  if (text.length > maxBytes) throw tooLargeError(maxBytes);
  return text;
};

/**
 * The retry rule both providers share for the two budget errors: a timeout is retried like any transient failure, a
 * reply over the byte cap once at most (it costs another full cap of bytes and time, and a server that sent one
 * usually sends the next).
 */
export const retryBudget = () => {
  let tooLarge = 0;
  return (err: unknown): boolean => {
    if (!(err instanceof LLMError) || !err.retryable) return false;
    if (err.code === 'llm_response_too_large') return ++tooLarge <= 1;
    return true;
  };
};
