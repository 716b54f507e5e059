import type { Config } from '../config';
import { firstEvent, startFailed } from '../engine/first-event';
import type { RunEvent, RunRequest } from '../engine/types';
import { sseFrame, sseResponse } from '../net/sse';

/** A run event as an SSE frame, byte for byte as its object frames it. */
export const runEventFrame = (e: RunEvent): Uint8Array => sseFrame({ id: e.id, event: e.type, data: JSON.stringify(e.data) });

/** A new run's first event as the frame its object will store and replay (src/engine/first-event.ts). */
export const runStartedFrame = (config: Config, runId: string, request: RunRequest): Uint8Array => runEventFrame(firstEvent(config, runId, request));

/**
 * An event stream that starts with `first` at once and goes on with the stream `start` answers with. If the start
 * fails, the stream says so in an `error` event and ends with `done` (status `failed`): the client already has its
 * 200 and the run's id. `explain` may put a failure in our words (a local state folder deleted under the server).
 */
export const firstEventThenRun = (
  first: Uint8Array,
  start: () => Promise<{ events?: Response }>,
  waitUntil?: (p: Promise<unknown>) => void,
  explain?: (err: unknown) => Promise<string | undefined>,
): Response => {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  writer.write(first).catch(() => {});
  const rest = (async () => {
    try {
      const { events } = await start();
      if (!events?.body) throw new Error('the run answered without its event stream');
      writer.releaseLock();
      // A client that went away cancels the pipe; the run goes on and stays readable.
      await events.body.pipeTo(writable).catch(() => {});
    } catch (err) {
      const why = (await explain?.(err).catch(() => undefined)) ?? (err instanceof Error ? err.message : String(err));
      for (const e of startFailed(`the run could not be started: ${why}`)) await writer.write(runEventFrame(e)).catch(() => {});
      await writer.close().catch(() => {});
    }
  })();
  waitUntil?.(rest);
  return sseResponse(readable);
};
