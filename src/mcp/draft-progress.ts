import type { Delta } from '../engine/live-deltas';

/** One progress message holds at most this much of the model's text; a longer piece goes as several. */
export const DRAFT_MESSAGE_CHARS = 500;
/** Text waits for more until this much has gathered, or until this long since the last message went out. */
export const DRAFT_WAIT_CHARS = 200;
export const DRAFT_INTERVAL_MS = 250;

/**
 * Gathers a run's live deltas into few progress messages, `Model (purpose): <text written since the last one>`:
 * a call's first piece at once, then one message per call at most every `DRAFT_INTERVAL_MS` unless `DRAFT_WAIT_CHARS`
 * wait. A message holds one call's text; a retried call is said in a message of its own. Time is read only when a
 * delta arrives (no timer): whatever still waits goes out with the next stored step, via `flush`.
 */
export const draftProgress = (now: () => number = Date.now) => {
  let waiting = '';
  let call: Delta | undefined;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  const flush = (): string[] => {
    if (!waiting || !call) return [];
    const messages: string[] = [];
    for (let i = 0; i < waiting.length; i += DRAFT_MESSAGE_CHARS) messages.push(`Model (${call.purpose}): ${waiting.slice(i, i + DRAFT_MESSAGE_CHARS)}`);
    waiting = '';
    lastSentAt = now();
    return messages;
  };
  return {
    /** The messages to send now for this delta (often none: its text waits). */
    delta(d: Delta): string[] {
      // Another call's text (or a retry's) never joins what waits, and its first piece goes at once.
      const fresh = d.call !== call?.call || d.retry === true || d.skipped === true;
      const out = fresh ? flush() : [];
      if (d.retry) out.push(`(the ${d.purpose} call was retried: its text so far does not count)`);
      if (d.skipped) out.push("(some of the model's text was skipped here: the run's stream was read slower than it was written)");
      call = d;
      waiting += d.text;
      if (fresh || waiting.length >= DRAFT_WAIT_CHARS || now() - lastSentAt >= DRAFT_INTERVAL_MS) out.push(...flush());
      return out;
    },
    /** What still waits, to go out before a stored step's message. */
    flush,
  };
};
