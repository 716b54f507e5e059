import type { Config } from '../../src/config';
import { standaloneQuestionOf } from '../../src/engine/conversation';
import { redact } from '../../src/engine/redact';
import { indexRunStatus } from '../../src/storage/run-index';
import { runView, type RunView } from '../../src/engine/run-view';
import type { LiveDeltas } from '../../src/engine/live-deltas';
import type { AnswerData, EventInput, LimitError, RunEvent, RunStatus, Timings } from '../../src/engine/types';
import type { RunMeta, RunStore } from '../run-store';
import type { SseFanout } from './sse-fanout';

export interface LedgerHooks {
  /** The run's trace id when tracing is on (shown in the run JSON). */
  traceId?: (runId: string) => string | undefined;
  /** Told once the run has ended and its last events are stored (the run's span is sent from here). */
  onFinish?: (ended: RunMeta, config: Config, events: RunEvent[]) => void;
}

/**
 * Writes the run's history: every event goes to storage (scrubbed of secrets) and then to the live streams; the end
 * of a run also updates the run index and answers those waiting for the result. Answers come attributed and
 * as the caller asked (src/engine/answer-policy.ts): the ledger stores what it is given.
 */
export class RunLedger {
  private readonly waiters: Array<(view: RunView | null) => void> = [];

  constructor(
    private readonly store: RunStore,
    private readonly fanout: SseFanout,
    private readonly storage: DurableObjectStorage,
    private readonly db: () => D1Database,
    private readonly hooks: LedgerHooks = {},
  ) {}

  private calls = 0;
  private indexing: Promise<void> = Promise.resolve();
  /** Where a step's model calls send their text while someone follows the run; never stored. */
  readonly live: LiveDeltas = {
    listening: () => this.fanout.listening(),
    nextCall: () => ++this.calls,
    send: (delta) => this.fanout.delta(delta),
  };

  /** Stores and streams events (with the state in `meta` when `checkpoint`). */
  append(meta: RunMeta, events: EventInput[], config: Config, checkpoint = false): RunEvent[] {
    const stored = this.store.commit(meta, events, Date.now(), (s) => redact(s, config.secrets), checkpoint);
    this.fanout.broadcast(stored);
    return stored;
  }

  /** Stores the last events and `done`, closes the streams, answers those who wait, then updates the run index. */
  async finish(meta: RunMeta, status: RunStatus, events: EventInput[], config: Config): Promise<RunMeta> {
    const finishedAt = Date.now();
    // An answer no model call streamed (composed, or nobody followed) reaches its readers now.
    const answered = events.some((e) => e.type === 'answer' && e.data.answer.trim() !== '');
    const firstAnswerAt = meta.firstAnswerAt ?? (answered ? finishedAt : undefined);
    const ended: RunMeta = { ...meta, status, finishedAt, ...(firstAnswerAt !== undefined ? { firstAnswerAt } : {}) };
    const done: EventInput = { type: 'done', data: { status, usage: ended.usage, timings: timingsOf(ended, finishedAt) } };
    const stored = this.append(ended, [...events, done], config);
    this.hooks.onFinish?.(ended, config, stored);
    // The watchdog armed for this step has nothing left to guard.
    this.storage.deleteAlarm().catch(() => {});
    this.fanout.closeAll();
    // Those waiting for the result get it before the index hears of the end: the listing asks a run the index still
    // calls unfinished for its own status. Rendering reads every event back; only do it when someone is waiting.
    const waiters = this.waiters.splice(0);
    if (waiters.length) {
      const view = this.render(ended);
      for (const resolve of waiters) resolve(view);
    }
    const answer = [...stored].reverse().find((e) => e.type === 'answer');
    await this.index(() =>
      indexRunStatus(this.db(), meta.runId, {
        status,
        answer: answer?.type === 'answer' ? answer.data.answer : null,
        durationMs: finishedAt - meta.startedAt,
        standaloneQuestion: standaloneQuestionOf(meta.request, meta.state),
      }),
    );
    return ended;
  }

  /** Ends the run `limited`, with the limit that was hit and the partial answer when there is one. */
  async limited(meta: RunMeta, partial: AnswerData | null, err: LimitError, config: Config): Promise<void> {
    const events: EventInput[] = [{ type: 'error', data: { code: `limit_${err.limit}`, message: err.message } }];
    if (partial) events.push({ type: 'answer', data: partial });
    await this.finish(meta, 'limited', events, config);
  }

  /** Resolves with the run once finish() has run. */
  untilFinished(): Promise<RunView | null> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * The run index is a convenience for listing: a failed write is logged, never a reason to fail the run. Writes go
   * one after another, so one that was not awaited (the run's creation) still lands before the later updates.
   */
  index(write: () => Promise<void>): Promise<void> {
    this.indexing = this.indexing.then(write).catch((err: unknown) => {
      console.error('run index write failed', err instanceof Error ? err.message : String(err));
    });
    return this.indexing;
  }

  render(meta: RunMeta): RunView {
    const end = meta.finishedAt ?? Date.now();
    return runView({
      runId: meta.runId,
      request: meta.request,
      standaloneQuestion: standaloneQuestionOf(meta.request, meta.state),
      status: meta.status,
      usage: meta.usage,
      timings: timingsOf(meta, end),
      events: this.store.eventsAfter(0),
      replay: meta.replay ? { archiveId: meta.replay.archiveId, misses: meta.usage.replayMisses ?? 0 } : null,
      parent: meta.parent ?? null,
      forks: meta.forks ?? [],
      checkpoints: this.store.checkpoints(),
      traceId: this.hooks.traceId?.(meta.runId) ?? null,
    });
  }
}

const timingsOf = (meta: RunMeta, end: number): Timings => ({
  totalMs: end - meta.startedAt,
  steps: meta.steps,
  firstAnswerTokenMs: meta.firstAnswerAt !== undefined ? meta.firstAnswerAt - meta.startedAt : null,
});
