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
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n');
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

/** Wraps an MCP response: an SSE body gets the bounded backlog; anything else (JSON, 202, an error) is returned as is. */
export const boundedMcpResponse = (res: Response, onClientGone: () => void, limits = { maxBacklogBytes: MAX_BACKLOG_BYTES, keepAliveMs: KEEP_ALIVE_MS }): Response => {
  if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
  const source = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const queue: Pending[] = [];
  let queuedProgress = 0;
  let skipped = 0;
  let ended = false;
  let wake: (() => void) | undefined;

  const push = (text: string) => {
    const progress = PROGRESS.test(text.slice(0, 200));
    const item = { text, bytes: text.length, progress };
    if (progress) {
      queuedProgress += item.bytes;
      // Drop the oldest waiting progress until the backlog fits again (the newest is the one worth reading).
      for (let i = 0; queuedProgress > limits.maxBacklogBytes && i < queue.length; ) {
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
    wake?.();
  };

  // Reads the SDK's stream to its end whatever the client does: its messages are split into frames as they come.
  const drain = (async () => {
    let partial = '';
    try {
      for (;;) {
        const { value, done } = await source.read();
        if (done) break;
        // A frame's end may straddle two pieces: look again from just before the new piece.
        let from = Math.max(0, partial.length - 1);
        partial += value;
        for (let end = partial.indexOf('\n\n', from); end >= 0; end = partial.indexOf('\n\n', from)) {
          push(partial.slice(0, end + 2));
          partial = partial.slice(end + 2);
          from = 0;
        }
      }
      if (partial) push(partial);
    } catch {
      // The SDK's stream broke or was cancelled: what was queued still goes out.
    }
    ended = true;
    wake?.();
  })();

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (queue.length === 0 && !ended) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await new Promise<void>((r) => {
            wake = r;
            timer = setTimeout(r, limits.keepAliveMs);
          });
          clearTimeout(timer);
          wake = undefined;
          if (queue.length === 0 && !ended) return controller.enqueue(KEEP_ALIVE);
        }
        const item = queue.shift();
        if (!item) return controller.close();
        if (item.progress) {
          queuedProgress -= item.bytes;
          if (skipped > 0) {
            item.text = withSkipNote(item.text, skipped);
            skipped = 0;
          }
        }
        controller.enqueue(encoder.encode(item.text));
      },
      async cancel() {
        queue.length = 0;
        queuedProgress = 0;
        onClientGone();
        await source.cancel().catch(() => {});
        await drain;
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
};
