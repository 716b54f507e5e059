import type { Delta } from '../../src/engine/live-deltas';
import { sseComment, sseDelta, sseFrame } from '../../src/engine/sse';
import type { RunEvent } from '../../src/engine/types';

/** Frames a subscriber may have unread before it is sent no more deltas (stored events always go). */
const MAX_UNREAD_FOR_DELTAS = 64;

/**
 * The run's live SSE subscribers. Writes are never awaited: a slow or gone client must never hold up the run, and a
 * failed write drops the subscriber. A heartbeat comment keeps idle streams open while anyone listens. Deltas are
 * live only and may be skipped for a client that reads slower than the model writes; stored events never are.
 */
export class SseFanout {
  private readonly subscribers = new Map<WritableStreamDefaultWriter<Uint8Array>, { unread: number }>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  /** Sends the stored events to one new stream, for the replay that comes before following. */
  replay(writer: WritableStreamDefaultWriter<Uint8Array>, events: RunEvent[]) {
    for (const e of events) this.write(writer, sseFrame(e));
  }

  /** Adds a stream to the live subscribers and keeps a heartbeat going every `heartbeatMs`. */
  follow(writer: WritableStreamDefaultWriter<Uint8Array>, heartbeatMs: number) {
    this.subscribers.set(writer, { unread: 0 });
    this.write(writer, sseComment('subscribed'));
    this.heartbeat ??= setInterval(() => {
      if (this.subscribers.size === 0) return this.stopHeartbeat();
      for (const w of this.subscribers.keys()) this.write(w, sseComment('keep-alive'));
    }, heartbeatMs);
  }

  /** Someone follows the run live. */
  listening(): boolean {
    return this.subscribers.size > 0;
  }

  broadcast(events: RunEvent[]) {
    for (const e of events) for (const w of this.subscribers.keys()) this.write(w, sseFrame(e));
  }

  /** A piece of a model call's reply, to every subscriber that keeps up. */
  delta(delta: Delta) {
    let frame: Uint8Array | undefined;
    for (const [w, s] of this.subscribers) {
      if (s.unread >= MAX_UNREAD_FOR_DELTAS) continue;
      this.write(w, (frame ??= sseDelta(delta)));
    }
  }

  /** The run ended: every stream closes after what it was sent. */
  closeAll() {
    for (const w of this.subscribers.keys()) w.close().catch(() => {});
    this.subscribers.clear();
    this.stopHeartbeat();
  }

  private write(writer: WritableStreamDefaultWriter<Uint8Array>, chunk: Uint8Array) {
    const s = this.subscribers.get(writer);
    if (s) s.unread += 1;
    writer.write(chunk).then(
      () => {
        if (s) s.unread -= 1;
      },
      () => this.subscribers.delete(writer),
    );
  }

  private stopHeartbeat() {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
