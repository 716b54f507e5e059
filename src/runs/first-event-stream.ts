import type { Config } from '../config';
import { firstEvent, startFailed } from '../engine/first-event';
import type { RunEvent, RunRequest } from '../engine/types';
import { pulledFrames, sseFrame, sseResponse } from '../net/sse';
import { publicMessage } from '../text/public-message';
import { firstEventOnItsWay, MAX_HOLD_MS } from './first-bytes';

/** A run event as an SSE frame, byte for byte as its object frames it. */
export const runEventFrame = (e: RunEvent): Uint8Array => sseFrame({ id: e.id, event: e.type, data: JSON.stringify(e.data) });

/** A new run's first event as the frame its object will store and replay (src/engine/first-event.ts). */
export const runStartedFrame = (config: Config, runId: string, request: RunRequest): Uint8Array => runEventFrame(firstEvent(config, runId, request));

/**
 * An event stream that starts with `first` at once and goes on with the stream `start` answers with. The run is set up
 * once `first` has left (the stream's reader asks for more only after it has written what it was given) and the
 * first events on their way with it have left too (./first-bytes.ts); a reader that goes away, or one that does not
 * ask within MAX_HOLD_MS, starts it as well. If the start fails, the stream says so in an `error` event and ends with
 * `done` (status `failed`): the client already has its 200 and the run's id. `explain` may put a failure in our
 * words (a local state folder deleted under the server).
 */
export const firstEventThenRun = (
  first: Uint8Array,
  start: () => Promise<{ events?: Response }>,
  waitUntil?: (p: Promise<unknown>) => void,
  explain?: (err: unknown) => Promise<string | undefined>,
): Response => {
  const setUpMayRun = firstEventOnItsWay();
  let firstLeft!: () => void;
  const leaving = new Promise<void>((r) => (firstLeft = r));
  const unread = setTimeout(firstLeft, MAX_HOLD_MS);
  let cancelled = false;
  const begun = (async (): Promise<ReadableStreamDefaultReader<Uint8Array> | Uint8Array[]> => {
    await leaving;
    clearTimeout(unread);
    await setUpMayRun();
    try {
      const { events } = await start();
      if (!events?.body) throw new Error('the run answered without its event stream');
      const reader = events.body.getReader();
      // The client went away meanwhile: the run goes on and stays readable.
      if (cancelled) await reader.cancel().catch(() => {});
      return reader;
    } catch (err) {
      const why = publicMessage((await explain?.(err).catch(() => undefined)) ?? (err instanceof Error ? err.message : String(err)));
      return startFailed(`the run could not be started: ${why}`).map(runEventFrame);
    }
  })();
  waitUntil?.(begun);
  let ended = false;
  // Asked for more: `first` has been written.
  const next = async (): Promise<Uint8Array[] | null> => {
    firstLeft();
    if (ended) return null;
    const source = await begun;
    if (Array.isArray(source)) {
      ended = true;
      return source;
    }
    const { value, done } = await source.read();
    return done ? null : [value];
  };
  const cancel = async () => {
    cancelled = true;
    firstLeft();
    const source = await begun;
    if (!Array.isArray(source)) await source.cancel().catch(() => {});
  };
  return sseResponse(pulledFrames(next, cancel, [first]));
};
