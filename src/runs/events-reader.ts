import { createParser, type EventSourceParser } from 'eventsource-parser';

/** Failed reopenings in a row after which the reader gives up; a reopening that works starts the count again. */
export const RECONNECTS = 8;
/**
 * With no run event for this long the run's stream is reopened after the last event seen. Comments (heartbeats) don't
 * count: an instance that lost its object can keep beating while the run goes on elsewhere. Reopening a live stream
 * is cheap (a replay of nothing), so a long model call merely costs a reopening every few seconds.
 */
export const EVENT_IDLE_MS = 10_000;

/** What reading a run's events yields. */
export type RunStreamItem =
  /** An event as sent: stored ones carry their id, live deltas none. `data` is its JSON text. */
  | { kind: 'event'; id?: number; event: string; data: string }
  /** A comment (a heartbeat or the object's `subscribed`): the stream is alive. */
  | { kind: 'comment' }
  /** The stream broke or stayed quiet and is opened again after the last stored event: live deltas in between are gone. */
  | { kind: 'reopened' }
  /** Reopening failed RECONNECTS times in a row: the reader gives up (the run itself goes on). */
  | { kind: 'lost' };

export interface RunStreamSource {
  /** The stream that came back with the run's start, when there was one. */
  first?: Response | null;
  /** Opens the run's stream after an event id (a fresh stub each time: one that saw its object die stays broken). */
  open: (after: number) => Promise<Response>;
}

const sleep = (ms: number, cut: Promise<void>) => Promise.race([new Promise<void>((r) => setTimeout(r, ms)), cut]);

/** One read, given up after `ms` (the reader is then cancelled and the read counts as the stream's end). */
const readWithin = async (reader: ReadableStreamDefaultReader<string>, ms: number): Promise<ReadableStreamReadResult<string>> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('idle')), ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } catch {
    reader.cancel().catch(() => {});
    return { done: true, value: undefined };
  } finally {
    clearTimeout(timer);
  }
};

const textReader = (res: Response | null | undefined) => res?.body?.pipeThrough(new TextDecoderStream()).getReader();

/**
 * The one resilient reader of a run's events, for the chat facade and MCP's `answer` tool. A run's object may be
 * evicted mid-stream (its stream just ends) or stop writing; the run resumes from storage, so the reader opens the
 * stream again after the last stored event it saw (Last-Event-ID) and the caller reads one uninterrupted run.
 * `next()` answers the items read (at least one), or null after `done`, after `lost`, or once closed.
 */
export const runEventsReader = (source: RunStreamSource, limits = { reconnects: RECONNECTS, idleMs: EVENT_IDLE_MS }) => {
  let reader = textReader(source.first);
  let lastId = 0;
  let reconnects = 0;
  let lastEventAt = Date.now();
  let finished = false;
  let closed = false;
  let closing!: () => void;
  const cut = new Promise<void>((r) => (closing = r));
  let pending: RunStreamItem[] = [];
  // One parser per opened stream: a half-read frame of a broken stream must not leak into the reopened one.
  const newParser = (): EventSourceParser =>
    createParser({
      onEvent: (m) => {
        if (!m.event || !m.data) return;
        if (m.id !== undefined) lastId = Number(m.id);
        lastEventAt = Date.now();
        if (m.event === 'done') finished = true;
        pending.push({ kind: 'event', ...(m.id !== undefined ? { id: Number(m.id) } : {}), event: m.event, data: m.data });
      },
      onComment: () => pending.push({ kind: 'comment' }),
    });
  let parser = newParser();

  /** Opens the stream again after a pause that grows with each failure; false once it is time to give up. */
  const reopen = async (): Promise<boolean> => {
    if (reconnects++ >= limits.reconnects) return false;
    await sleep(Math.min(2_000, 50 * 2 ** reconnects), cut);
    if (closed) return true;
    try {
      const res = await source.open(lastId);
      reader = res.ok ? textReader(res) : undefined;
      lastEventAt = Date.now();
      // Only failed reopenings count towards giving up; a quiet but live run may be reopened any number of times.
      if (reader) reconnects = 0;
    } catch {
      reader = undefined;
    }
    return true;
  };

  const next = async (): Promise<RunStreamItem[] | null> => {
    for (;;) {
      if (finished || closed) return null;
      if (!reader) {
        if (!(await reopen())) {
          finished = true;
          return [{ kind: 'lost' }];
        }
        continue;
      }
      const read = await readWithin(reader, Math.max(1, lastEventAt + limits.idleMs - Date.now()));
      if (read.done) {
        reader = undefined;
        parser = newParser();
        if (!closed) return [{ kind: 'reopened' }];
        continue;
      }
      parser.feed(read.value);
      const out = pending;
      pending = [];
      if (out.length) return out;
    }
  };

  return {
    next,
    /** Stops reading (the caller went away); the run goes on and stays readable. */
    async close() {
      closed = true;
      closing();
      await reader?.cancel().catch(() => {});
    },
  };
};
