import type { ChatRequest, ChatScope, LLM, Purpose } from '../llm/types';

/**
 * A piece of a model call's reply, sent to the run's live streams as it arrives. Never stored: the finished step is
 * what a replay, a fork and the run JSON show.
 */
export interface Delta {
  /** Which model call of the run the text belongs to; calls of one step may interleave (the closed-book call). */
  call: number;
  purpose: Purpose;
  /** The call writes the run's answer. */
  answer?: true;
  /** The provider retried the call: its text so far does not count, this delta starts it anew. */
  retry?: true;
  /** Set per stream: live text before this piece was not sent to this stream (its reader fell behind). */
  skipped?: true;
  text: string;
}

/** Where a run's deltas go while someone follows it. */
export interface LiveDeltas {
  /** Someone follows the run now: only then is a call asked to stream. */
  listening(): boolean;
  /** A number for the next streamed call, unique among the run's live streams. */
  nextCall(): number;
  send(delta: Delta): void;
}

/** At most one frame per call this often (the first at once), unless this many characters wait: a 1-byte-chunk model cannot flood. */
export const DELTA_INTERVAL_MS = 50;
export const DELTA_MAX_CHARS = 1_024;
/** One frame holds at most this much of a call's text: a stream's backlog is counted in frames this small. */
export const DELTA_FRAME_CHARS = 8_192;

/**
 * Hands a call's text on at most once every `intervalMs`: the first piece at once (the first token is what a reader
 * waits for), later ones gathered until the interval ends, or sooner once `maxChars` wait; `flush` sends what is
 * left. The timer is the only clock: workerd's Date.now() stands still between I/O.
 */
export const coalescer = (emit: (text: string) => void, intervalMs = DELTA_INTERVAL_MS, maxChars = DELTA_MAX_CHARS) => {
  let waiting = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A piece of any size (a model that writes its whole reply at once) goes out as frames of at most
  // `DELTA_FRAME_CHARS`, so a stream's backlog is counted in small units and a slow reader misses whole frames.
  const send = () => {
    if (!waiting) return false;
    const text = waiting;
    waiting = '';
    for (let at = 0; at < text.length; at += DELTA_FRAME_CHARS) emit(text.slice(at, at + DELTA_FRAME_CHARS));
    return true;
  };
  // While the interval runs, pieces wait; when it ends with something waiting, that goes and a new interval starts.
  const tick = () => {
    timer = send() ? setTimeout(tick, intervalMs) : undefined;
  };
  return {
    push(text: string) {
      waiting += text;
      if (!timer) tick();
      else if (waiting.length >= maxChars) send();
    },
    flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      send();
    },
  };
};

/**
 * The visible part of a growing reply: the text before the first stop sequence, holding back the last characters
 * that could still begin one, so a client never sees `Observation:` the provider cuts afterwards. Each call of
 * `take` returns the new visible text since the last; `rest(final)` what the finished reply adds beyond that.
 * A piece is searched together with the few characters before it only (the held-back ones and as many released
 * ones), never with the whole reply, so a reply that arrives a character at a time costs time in proportion to it.
 */
export const stopGuard = (stop: readonly string[] | undefined) => {
  const stops = (stop ?? []).filter(Boolean);
  const holdBack = Math.max(0, ...stops.map((s) => s.length - 1));
  // Released text whole (read once, by rest), its last holdBack characters, and the text held back after it.
  let released = '';
  let recent = '';
  let held = '';
  let stopped = false;
  return {
    take(delta: string): string {
      if (stopped) return '';
      // No stop begins before `recent` ends: the text before it was released only once no stop could begin there.
      const window = recent + held + delta;
      let cut = -1;
      for (const s of stops) {
        const i = window.indexOf(s);
        if (i >= 0 && (cut < 0 || i < cut)) cut = i;
      }
      if (cut >= 0) stopped = true;
      const until = cut >= 0 ? cut : window.length - holdBack;
      if (until <= recent.length) {
        held = window.slice(recent.length);
        return '';
      }
      const out = window.slice(recent.length, until);
      released += out;
      recent = holdBack ? window.slice(Math.max(0, until - holdBack), until) : '';
      held = window.slice(until);
      return out;
    },
    /** The finished reply (already cut at its stops) beyond what was released; empty when it does not extend it. */
    rest(final: string): string {
      return final.length > released.length && final.startsWith(released) ? final.slice(released.length) : '';
    },
  };
};

/**
 * Asks every model call to stream while someone follows the run, and sends its text there as deltas: coalesced,
 * cut at the call's stop sequences, and completed from the finished reply. A strategy's own `onDelta` still gets
 * every piece. Nobody following: the call goes as it is (a provider streams only when asked).
 */
export const liveLLM = (inner: LLM, live: LiveDeltas | undefined): LLM => {
  if (!live) return inner;
  return {
    provider: inner.provider,
    model: inner.model,
    acceptsImages: inner.acceptsImages,
    ...(inner.servedModels ? { servedModels: inner.servedModels.bind(inner) } : {}),
    async chat(request: ChatRequest, scope: ChatScope = {}) {
      if (!live.listening()) return inner.chat(request, scope);
      const call = live.nextCall();
      const base = { call, purpose: request.purpose, ...(scope.answer ? { answer: true as const } : {}) };
      let retried = false;
      const out = coalescer((text) => {
        live.send({ ...base, ...(retried ? { retry: true as const } : {}), text });
        retried = false;
      });
      let guard = stopGuard(request.stop);
      const own = scope.onDelta;
      const onDelta = (text: string) => {
        own?.(text);
        const visible = guard.take(text);
        if (visible) out.push(visible);
      };
      const onRetry = () => {
        scope.onRetry?.();
        out.flush();
        guard = stopGuard(request.stop);
        retried = true;
      };
      try {
        const result = await inner.chat(request, { ...scope, onDelta, onRetry });
        const rest = guard.rest(result.text);
        if (rest) out.push(rest);
        return result;
      } finally {
        out.flush();
        // A retry that wrote nothing still voids what the failed attempt showed.
        if (retried) live.send({ ...base, retry: true, text: '' });
      }
    },
  };
};
