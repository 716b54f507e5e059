import { DurableObject } from 'cloudflare:workers';
import { loadConfig, type Config } from '../src/config';
import { indexRunCreated, OPEN_OWNER, type RunSummary } from '../src/storage/run-index';
import type { RunView } from '../src/engine/run-view';
import { standaloneQuestionOf } from '../src/engine/conversation';
import { runStarted } from '../src/engine/first-event';
import { sseResponse } from '../src/net/sse';
import { isTerminal, RunCancelled, type EventInput, type RunRequest } from '../src/engine/types';
import { runSpan, sendSpans, traceIdFor, tracingOn } from '../src/telemetry/run-tracing';
import { upgradeStoredState } from '../src/strategies';
import { RunEvidence } from './run/evidence';
import { replayFor } from './run/setup';
import { forkedRun, forkSourceOf, type ForkSource, type ForkSourceOutcome } from './run/fork';
import { RunLedger } from './run/ledger';
import { SseFanout } from './run/sse-fanout';
import { Stepper } from './run/stepper';
import { RunStore, type RunMeta } from './run-store';

export type { ForkSource, ForkSourceOutcome } from './run/fork';

/** What DELETE /v1/runs/{id} found: the run is now cancelled (or already was), had already ended otherwise, or is not the caller's. */
export type CancelOutcome =
  | { outcome: 'cancelled'; view: RunView }
  | { outcome: 'finished'; view: RunView }
  | { outcome: 'not_found' };

/**
 * Who may see a run: `undefined` (an open server) sees every run; a keyed caller only its own.
 * Runs made on an open server belong to OPEN_OWNER.
 */
const visibleTo = (meta: RunMeta, caller: string | undefined) => caller === undefined || (meta.owner ?? OPEN_OWNER) === caller;

/**
 * One object per run. It owns the run's SQLite (RunStore) and answers the API's calls; the work is done by its parts:
 * the Stepper advances the strategy step by step from an alarm (so an eviction resumes from the last stored step), the
 * RunLedger writes events and ends runs, the SseFanout streams them, and RunEvidence records and replays evidence.
 */
export class RunObject extends DurableObject<Env> {
  private readonly store: RunStore;
  private readonly fanout: SseFanout;
  private readonly ledger: RunLedger;
  private readonly evidence: RunEvidence;
  private readonly stepper: Stepper;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RunStore(ctx.storage, upgradeStoredState);
    this.fanout = new SseFanout(this.store);
    const waitUntil = (p: Promise<unknown>) => ctx.waitUntil(p);
    this.ledger = new RunLedger(this.store, this.fanout, ctx.storage, () => this.env.DB, {
      traceId: (runId) => traceIdFor(this.config(), runId),
      onFinish: (ended, config, events) => {
        if (!tracingOn(config) || ended.finishedAt === undefined) return;
        const error = [...events].reverse().find((e) => e.type === 'error');
        const message = error?.type === 'error' ? `${String(error.data.code)}: ${String(error.data.message)}` : undefined;
        sendSpans(config, [runSpan(config, { ...ended, finishedAt: ended.finishedAt }, message)], waitUntil);
      },
    });
    this.evidence = new RunEvidence(this.store, env);
    this.stepper = new Stepper({ storage: ctx.storage, env, store: this.store, ledger: this.ledger, evidence: this.evidence, config: () => this.config(), waitUntil });
    // A new instance of an unfinished run means the previous one died (eviction, crash, deploy):
    // no step can be in flight here, so resume now rather than waiting for the watchdog.
    ctx.blockConcurrencyWhile(async () => {
      const meta = this.store.meta();
      if (meta && !isTerminal(meta.status)) await ctx.storage.setAlarm(Date.now());
    });
  }

  /**
   * Stores the request and schedules the first step. Idempotent: a second start of the same run is a no-op.
   * `owner` is the caller's key hash (`key:…`), or absent on an open server; it scopes listing, reading and cancelling.
   * With `followAfter`, the answer carries the run's event stream after that event (0: from the first; the API sends
   * the first itself, see src/engine/first-event.ts), subscribed before the first step can run (so its first model
   * call already streams) and without a second round trip.
   */
  async start(runId: string, request: RunRequest, owner?: string, followAfter?: number): Promise<{ created: boolean; events?: Response }> {
    const follow = followAfter !== undefined;
    if (this.store.meta()) return { created: false, ...(follow ? { events: this.stream(followAfter) } : {}) };
    const config = this.config();
    const now = Date.now();
    const meta = this.store.create(runId, request, now, owner ?? OPEN_OWNER);
    const archiveId = replayFor(request, config);
    if (archiveId) meta.replay = { archiveId };
    this.ledger.append(meta, [runStarted(runId, request)], config, true);
    const events = follow ? this.stream(followAfter) : undefined;
    // The run index is for listing: written after the first event is on its way (writes keep their order).
    this.ctx.waitUntil(this.ledger.index(() => indexRunCreated(this.env.DB, { runId, owner: owner ?? OPEN_OWNER, question: request.question, variant: request.variant, mode: request.mode, createdAt: now })));
    await this.ctx.storage.setAlarm(now);
    this.stepper.soon();
    return { created: true, ...(events ? { events } : {}) };
  }

  /** A fork's first half, asked of the parent (see forkSourceOf). Nothing of the parent changes. */
  async forkSource(fromStep: number, caller?: string): Promise<ForkSourceOutcome> {
    const meta = this.store.meta();
    if (!meta || !visibleTo(meta, caller)) return { ok: false, code: 'not_found', message: 'no such run' };
    return forkSourceOf(this.store, meta, fromStep);
  }

  /** A fork's second half, on the new run: copy the parent's events as stored, restore the state, go on. */
  async startFork(runId: string, request: RunRequest, parent: { runId: string; fromStep: number }, source: ForkSource, owner?: string): Promise<{ created: boolean }> {
    if (this.store.meta()) return { created: false };
    const now = Date.now();
    const { meta, events } = forkedRun(runId, request, parent, source, owner, replayFor(request, this.config()), now);
    this.store.seed(meta, events, source.checkpoints);
    await this.ledger.index(() => indexRunCreated(this.env.DB, { runId, owner: owner ?? OPEN_OWNER, question: request.question, variant: request.variant, mode: request.mode, createdAt: now }));
    await this.ctx.storage.setAlarm(now);
    this.stepper.soon();
    return { created: true };
  }

  /** Links a fork to its parent; the parent's events and state stay as they are. */
  async addFork(child: { runId: string; fromStep: number }): Promise<void> {
    const meta = this.store.meta();
    if (!meta || meta.forks?.some((f) => f.runId === child.runId)) return;
    this.store.saveMeta({ ...meta, forks: [...(meta.forks ?? []), child] });
  }

  /** GET /v1/runs/{id}/evidence: every request → response the run received, as a JSONL archive (docs/ARCHIVE.md). */
  async evidenceArchive(caller?: string): Promise<string | null> {
    const meta = this.store.meta();
    if (!meta || !visibleTo(meta, caller)) return null;
    return this.evidence.archive(meta);
  }

  /** The run JSON, or null when there is no such run or the caller may not see it. */
  async view(caller?: string): Promise<RunView | null> {
    const meta = this.store.meta();
    return meta && visibleTo(meta, caller) ? this.underWay(this.ledger.render(meta)) : null;
  }

  /**
   * What the stored run cannot say while a step is under way: it is running once its object works on it (its status
   * is stored as `running` only when its first step ends), and which model calls it waits on.
   */
  private underWay(view: RunView): RunView {
    if (isTerminal(view.status)) return view;
    return { ...view, status: view.status === 'queued' && this.stepper.busy() ? 'running' : view.status, waitingOn: this.stepper.waitingOn() };
  }

  /** The run's row of GET /v1/runs, read from the run itself (the index may lag behind a run that just ended). */
  async summary(): Promise<RunSummary | null> {
    const meta = this.store.meta();
    if (!meta) return null;
    const answer = [...this.store.eventsAfter(0)].reverse().find((e) => e.type === 'answer');
    return {
      runId: meta.runId,
      question: meta.request.question,
      standaloneQuestion: standaloneQuestionOf(meta.request, meta.state),
      variant: meta.request.variant,
      mode: meta.request.mode,
      status: meta.status === 'queued' && this.stepper.busy() ? 'running' : meta.status,
      answer: answer?.type === 'answer' ? answer.data.answer : null,
      createdAt: meta.startedAt,
      durationMs: meta.finishedAt !== undefined ? meta.finishedAt - meta.startedAt : null,
    };
  }

  /** Resolves with the run once it has ended. */
  async wait(): Promise<RunView | null> {
    const meta = this.store.meta();
    if (!meta || isTerminal(meta.status)) return meta ? this.ledger.render(meta) : null;
    return this.ledger.untilFinished();
  }

  /**
   * DELETE /v1/runs/{id}. A queued or running run ends now with status `cancelled`: the step in flight is aborted
   * (its model or tool call is abandoned and nothing of it is stored), no further step runs, and the stored steps
   * stay. Cancelling a cancelled run is a no-op that answers the same; a run that ended otherwise is `finished`.
   */
  async cancel(caller?: string): Promise<CancelOutcome> {
    const meta = this.store.meta();
    if (!meta || !visibleTo(meta, caller)) return { outcome: 'not_found' };
    if (meta.status === 'cancelled') return { outcome: 'cancelled', view: this.ledger.render(meta) };
    if (isTerminal(meta.status)) return { outcome: 'finished', view: this.ledger.render(meta) };
    this.stepper.abort(new RunCancelled());
    const events: EventInput[] = [{ type: 'error', data: { code: 'cancelled', message: 'the run was cancelled by its client' } }];
    const partial = this.stepper.partial(meta);
    if (partial) events.push({ type: 'answer', data: partial });
    const ended = await this.ledger.finish(meta, 'cancelled', events, this.stepper.configOf(meta));
    return { outcome: 'cancelled', view: this.ledger.render(ended) };
  }

  /** GET /events?after=N: replay stored events after N, then follow live until the run ends. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const meta = this.store.meta();
    const caller = url.searchParams.get('caller') ?? undefined;
    if (!meta || !visibleTo(meta, caller)) return Response.json({ error: { code: 'not_found', message: 'no such run' } }, { status: 404 });
    return this.stream(Math.max(0, Number(url.searchParams.get('after') ?? '0') || 0));
  }

  /** The stored events after `after`, then the live ones until the run ends, at the pace its reader reads. */
  private stream(after: number): Response {
    const meta = this.store.meta();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.fanout.subscribe(writable.getWriter(), after, !!meta && !isTerminal(meta.status), this.config().SSE_HEARTBEAT_MS);
    return sseResponse(readable);
  }

  override async alarm(): Promise<void> {
    await this.stepper.alarm();
  }

  private config(): Config {
    return loadConfig(this.env as unknown as Record<string, unknown>);
  }
}
