import { pulledFrames, sseComment } from '../net/sse';

/**
 * The SSE response of one MCP POST, with a small backlog for a client that reads slowly or not at all. The SDK's
 * transport writes every message into its stream at once (it never waits for the reader), so a run's progress would
 * pile up there for as long as the run writes; this reads the SDK's stream as it comes and hands the client one
 * message per read. Progress notifications are advisory and numbered so that `progress` only grows: past
 * `MAX_BACKLOG_BYTES` waiting, the oldest waiting ones are dropped, and the next one delivered says how many were
 * skipped. Everything else (the result, an error) always waits its turn. When the client goes away (the response is
 * cancelled, which a keep-alive comment makes sure happens soon) the SDK's stream is cancelled too and
 * `onClientGone` is told.
 */

/** Progress waiting for a slow reader is kept up to this size; the oldest goes first. */
export const MAX_BACKLOG_BYTES = 64 * 1024;
/**
 * With nothing to send for this long a comment goes out: a dropped connection is only noticed when a write to it
 * fails, and a run waiting on a slow model writes nothing for many seconds.
 */
export const KEEP_ALIVE_MS = 2_000;

interface Pending {
  text: string;
  bytes: number;
  progress: boolean;
}

const encoder = new TextEncoder();
const KEEP_ALIVE = sseComment('keep-alive');
const PROGRESS = /"method"\s*:\s*"notifications\/progress"/;

const DATA_LINE = /^data: (.*)$/m;

/** The frame with a note in its message that `skipped` earlier progress messages were not sent. */
const withSkipNote = (frame: string, skipped: number): string => {
  const line = DATA_LINE.exec(frame);
  if (!line) return frame;
  try {
    const message = JSON.parse(line[1]!) as { params?: { message?: string } };
    if (!message.params) return frame;
    const note = `(${skipped} progress message${skipped === 1 ? '' : 's'} skipped: the client read slower than the run wrote)`;
    message.params.message = message.params.message ? `${note} ${message.params.message}` : note;
    return `${frame.slice(0, line.index)}data: ${JSON.stringify(message)}${frame.slice(line.index + line[0].length)}`;
  } catch {
    return frame;
  }
};

/**
 * The frames waiting for the client, in order. Waiting progress is kept up to `maxBytes`: past it the oldest waiting
 * progress goes (the newest is the one worth reading), and the next progress handed out says how many went.
 * Everything else always waits its turn.
 */
const backlog = (maxBytes: number) => {
  const queue: Pending[] = [];
  let queuedProgress = 0;
  let skipped = 0;
  return {
    push(text: string) {
      const item = { text, bytes: text.length, progress: PROGRESS.test(text.slice(0, 200)) };
      if (item.progress) {
        queuedProgress += item.bytes;
        for (let i = 0; queuedProgress > maxBytes && i < queue.length; ) {
          if (!queue[i]!.progress) {
            i++;
            continue;
          }
          queuedProgress -= queue[i]!.bytes;
          queue.splice(i, 1);
          skipped++;
        }
      }
      queue.push(item);
    },
    /** The next frame to send, or undefined when none waits. */
    shift(): string | undefined {
      const item = queue.shift();
      if (!item?.progress) return item?.text;
      queuedProgress -= item.bytes;
      if (skipped === 0) return item.text;
      const noted = withSkipNote(item.text, skipped);
      skipped = 0;
      return noted;
    },
    get empty() {
      return queue.length === 0;
    },
    clear() {
      queue.length = 0;
      queuedProgress = 0;
    },
  };
};

/** Reads an SSE text stream to its end, handing over each frame as it completes (a frame's end may straddle two pieces). */
const readFrames = async (source: ReadableStreamDefaultReader<string>, frame: (text: string) => void) => {
  let partial = '';
  for (;;) {
    const { value, done } = await source.read();
    if (done) break;
    let from = Math.max(0, partial.length - 1);
    partial += value;
    for (let end = partial.indexOf('\n\n', from); end >= 0; end = partial.indexOf('\n\n', from)) {
      frame(partial.slice(0, end + 2));
      partial = partial.slice(end + 2);
      from = 0;
    }
  }
  if (partial) frame(partial);
};

/** Wraps an MCP response: an SSE body gets the bounded backlog; anything else (JSON, 202, an error) is returned as is. */
export const boundedMcpResponse = (res: Response, onClientGone: () => void, limits = { maxBacklogBytes: MAX_BACKLOG_BYTES, keepAliveMs: KEEP_ALIVE_MS }): Response => {
  if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
  const source = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const waiting = backlog(limits.maxBacklogBytes);
  let ended = false;
  let wake: (() => void) | undefined;
  // Reads the SDK's stream to its end whatever the client does; a stream that broke or was cancelled still sends
  // what was queued.
  const drain = readFrames(source, (text) => {
    waiting.push(text);
    wake?.();
  })
    .catch(() => {})
    .finally(() => {
      ended = true;
      wake?.();
    });
  const next = async (): Promise<Uint8Array[] | null> => {
    if (waiting.empty && !ended) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((r) => {
        wake = r;
        timer = setTimeout(r, limits.keepAliveMs);
      });
      clearTimeout(timer);
      wake = undefined;
      if (waiting.empty && !ended) return [KEEP_ALIVE];
    }
    const text = waiting.shift();
    return text === undefined ? null : [encoder.encode(text)];
  };
  const cancel = async () => {
    waiting.clear();
    onClientGone();
    await source.cancel().catch(() => {});
    await drain;
  };
  return new Response(pulledFrames(next, cancel), { status: res.status, statusText: res.statusText, headers: res.headers });
};
