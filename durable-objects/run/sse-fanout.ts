import type { Delta } from '../../src/engine/live-deltas';
import { sseComment, sseFrame } from '../../src/net/sse';
import type { RunEvent } from '../../src/engine/types';

/** A subscriber with this many bytes unread is written nothing more until its reader takes some. */
export const MAX_UNREAD_BYTES = 64 * 1024;
/** Deltas go only to a subscriber that is up to date and has less than this unread: live text is skipped, not queued. */
export const MAX_UNREAD_FOR_DELTAS = 16 * 1024;
/** A large frame (a long answer, a big observation) is written in pieces of this size, each when the last was read. */
export const SLICE_BYTES = 16 * 1024;
/** Encoded frames of the newest events, shared by every subscriber that is up to date. */
const RECENT_FRAMES = 8;

/** Where the fanout reads stored events from: each subscriber catches up from storage at its own pace. */
export interface StoredEvents {
  /** The first stored event after `after`: its id, type and data as stored (JSON text). */
  nextAfter(after: number): { id: number; type: string; data: string } | undefined;
  /** The id of the last stored event (0: none). */
  lastId(): number;
}

/** A live delta has no id: it is never stored, so a client's Last-Event-ID stays on the last stored event. */
const deltaFrame = (delta: Delta) => sseFrame({ event: 'delta', data: JSON.stringify(delta) });

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Bytes written and not yet taken by the stream's reader (workerd's pump, which sends them on). */
  unread: number;
  /** The last stored event whose frame was started. */
  cursor: number;
  /** What is left to write of that frame. */
  rest?: Uint8Array;
  /** The run has ended: close once everything stored was written. */
  closing: boolean;
  /** Deltas were skipped for it since the last one it got: the next one says so. */
  missed?: boolean;
}

/**
 * The run's SSE subscribers, each with a small backlog of its own. A subscriber is a cursor into the stored events:
 * it is written the next event (in slices) only while less than `MAX_UNREAD_BYTES` of what it was sent is unread, and
 * catches up from storage when its reader takes more, so a client that reads slowly or not at all costs a bounded
 * amount whatever the run writes, and still gets every stored event in order. Live deltas are never stored: they go
 * to subscribers that are up to date and reading, and are skipped for the others. Writes are never awaited (a slow
 * or gone client must never hold up the run); a failed write drops the subscriber and what it held. A heartbeat
 * comment keeps idle streams open while anyone listens.
 */
export class SseFanout {
  private readonly subscribers = new Set<Subscriber>();
  private readonly recent = new Map<number, Uint8Array>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** The last stored event: a subscriber whose cursor is here is up to date. Read from storage when unknown. */
  private latest: number | undefined;

  constructor(private readonly stored: StoredEvents) {}

  /**
   * A new stream: the stored events after `after`, then (with `follow`) the live ones until the run ends; without
   * `follow` it closes once it has caught up (the run had already ended).
   */
  subscribe(writer: WritableStreamDefaultWriter<Uint8Array>, after: number, follow: boolean, heartbeatMs: number) {
    const sub: Subscriber = { writer, unread: 0, cursor: after, closing: !follow };
    this.subscribers.add(sub);
    if (follow) {
      this.write(sub, sseComment('subscribed'));
      this.heartbeat ??= setInterval(() => this.beat(), heartbeatMs);
    }
    this.pump(sub);
  }

  /** Someone follows the run live. */
  listening(): boolean {
    return this.subscribers.size > 0;
  }

  /** Events were stored: every subscriber with room takes the next of them. */
  broadcast(events: RunEvent[]) {
    for (const e of events) {
      this.latest = e.id;
      this.recent.set(e.id, sseFrame({ id: e.id, event: e.type, data: JSON.stringify(e.data) }));
      if (this.recent.size > RECENT_FRAMES) this.recent.delete(this.recent.keys().next().value!);
    }
    for (const sub of this.subscribers) this.pump(sub);
  }

  /** A piece of a model call's reply, to every subscriber that is up to date and reading; the first after a gap says so. */
  delta(delta: Delta) {
    let frame: Uint8Array | undefined;
    if (this.subscribers.size === 0) return;
    const latest = this.lastStored();
    for (const sub of this.subscribers) {
      frame ??= deltaFrame(delta);
      if (sub.closing) continue;
      if (sub.rest || sub.unread + frame.length > MAX_UNREAD_FOR_DELTAS || sub.cursor < latest) {
        sub.missed = true;
        continue;
      }
      this.write(sub, sub.missed ? deltaFrame({ ...delta, skipped: true }) : frame);
      sub.missed = false;
    }
  }

  /** The run ended: every stream closes once it has been written everything stored. */
  closeAll() {
    for (const sub of this.subscribers) {
      sub.closing = true;
      this.pump(sub);
    }
  }

  /** Writes the next frames while the subscriber has room; closes it when it has caught up with an ended run. */
  private pump(sub: Subscriber) {
    while (this.subscribers.has(sub) && sub.unread < MAX_UNREAD_BYTES) {
      if (!sub.rest) {
        // Up to date: nothing to read back from storage (asking it at every write costs native memory).
        const next = sub.cursor < this.lastStored() ? this.next(sub.cursor) : undefined;
        if (!next) {
          if (sub.closing) this.drop(sub, true);
          return;
        }
        sub.cursor = next.id;
        sub.rest = next.frame;
      }
      const piece = sub.rest.subarray(0, SLICE_BYTES);
      sub.rest = sub.rest.length > SLICE_BYTES ? sub.rest.subarray(SLICE_BYTES) : undefined;
      this.write(sub, piece);
    }
  }

  private lastStored(): number {
    return (this.latest ??= this.stored.lastId());
  }

  /** The frame of the first stored event after `after`: shared when it is recent, else read back from storage. */
  private next(after: number): { id: number; frame: Uint8Array } | undefined {
    const shared = this.recent.get(after + 1);
    if (shared) return { id: after + 1, frame: shared };
    const e = this.stored.nextAfter(after);
    return e ? { id: e.id, frame: sseFrame({ id: e.id, event: e.type, data: e.data }) } : undefined;
  }

  private write(sub: Subscriber, chunk: Uint8Array) {
    sub.unread += chunk.length;
    sub.writer.write(chunk).then(
      () => {
        sub.unread -= chunk.length;
        this.pump(sub);
      },
      () => this.drop(sub, false),
    );
  }

  /** Forgets a subscriber (closing its stream when it ended well): nothing of it stays here. */
  private drop(sub: Subscriber, close: boolean) {
    if (!this.subscribers.delete(sub)) return;
    sub.rest = undefined;
    if (close) sub.writer.close().catch(() => {});
    else sub.writer.abort().catch(() => {});
    if (this.subscribers.size > 0) return;
    this.stopHeartbeat();
    this.recent.clear();
  }

  /** A comment to every stream with nothing unread, so idle connections stay open; the others are busy anyway. */
  private beat() {
    if (this.subscribers.size === 0) return this.stopHeartbeat();
    for (const sub of this.subscribers) if (sub.unread === 0 && !sub.rest) this.write(sub, sseComment('keep-alive'));
  }

  private stopHeartbeat() {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
