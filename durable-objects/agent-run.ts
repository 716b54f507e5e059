import { DurableObject } from 'cloudflare:workers';
import { loadConfig, type Config } from '../src/config';
import { applyAnswerFormat } from '../src/engine/answer-format';
import { createRunContext } from '../src/engine/context';
import { limitsFor } from '../src/engine/limits';
import { redact } from '../src/engine/redact';
import { runView, type RunView } from '../src/engine/run-view';
import { createServices, createToolRegistry } from '../src/engine/services';
import { SSE_HEADERS, sseComment, sseFrame } from '../src/engine/sse';
import { indexRunCreated, indexRunStatus, OPEN_OWNER, type RunSummary } from '../src/engine/run-index';
import { isTerminal, LimitError, RunCancelled, type AnswerData, type EventInput, type RunEvent, type RunRequest, type RunStatus } from '../src/engine/types';
import { createLLM } from '../src/llm';
import { LLMError } from '../src/llm/types';
import { strategyFor } from '../src/strategies';
import { RunStore, type RunMeta } from './run-store';

/** If the object dies mid-step, this alarm (armed before each step) resumes the run. */
const WATCHDOG_MS = 60_000;

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
 * One object per run. It owns the run's SQLite, advances the strategy one step per alarm (so an eviction
 * resumes from the last stored step), and fans the stored events out to SSE subscribers.
 */
export class AgentRun extends DurableObject<Env> {
  private readonly store: RunStore;
  private readonly subscribers = new Set<WritableStreamDefaultWriter<Uint8Array>>();
  private readonly waiters: Array<(view: RunView | null) => void> = [];
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** True while this instance runs a step: a second alarm delivery must not run the same step twice. */
  private stepping = false;
  /** Aborts the step in flight: its wall-time deadline, a cancel, or the watchdog. */
  private inflight: AbortController | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RunStore(ctx.storage);
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
   */
  async start(runId: string, request: RunRequest, owner?: string): Promise<{ created: boolean }> {
    if (this.store.meta()) return { created: false };
    const config = this.config();
    const now = Date.now();
    const meta = this.store.create(runId, request, now, owner ?? OPEN_OWNER);
    this.append(meta, [{ type: 'run', data: { runId, variant: request.variant, mode: request.mode, question: request.question } }], config);
    await this.index(() => indexRunCreated(this.db(), { runId, owner: owner ?? OPEN_OWNER, question: request.question, variant: request.variant, mode: request.mode, createdAt: now }));
    await this.ctx.storage.setAlarm(now);
    return { created: true };
  }

  /** The run JSON, or null when there is no such run or the caller may not see it. */
  async view(caller?: string): Promise<RunView | null> {
    const meta = this.store.meta();
    return meta && visibleTo(meta, caller) ? this.render(meta) : null;
  }

  /** The run's row of GET /v1/runs, read from the run itself (the index may lag behind a run that just ended). */
  async summary(): Promise<RunSummary | null> {
    const meta = this.store.meta();
    if (!meta) return null;
    const answer = [...this.store.eventsAfter(0)].reverse().find((e) => e.type === 'answer');
    return {
      runId: meta.runId,
      question: meta.request.question,
      variant: meta.request.variant,
      mode: meta.request.mode,
      status: meta.status,
      answer: answer?.type === 'answer' ? answer.data.answer : null,
      createdAt: meta.startedAt,
      durationMs: meta.finishedAt !== undefined ? meta.finishedAt - meta.startedAt : null,
    };
  }

  /** Resolves with the run once it has ended. */
  async wait(): Promise<RunView | null> {
    const meta = this.store.meta();
    if (!meta || isTerminal(meta.status)) return meta ? this.render(meta) : null;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * DELETE /v1/runs/{id}. A queued or running run ends now with status `cancelled`: the step in flight is aborted
   * (its model or tool call is abandoned and nothing of it is stored), no further step runs, and the stored steps
   * stay. Cancelling a cancelled run is a no-op that answers the same; a run that ended otherwise is `finished`.
   */
  async cancel(caller?: string): Promise<CancelOutcome> {
    const meta = this.store.meta();
    if (!meta || !visibleTo(meta, caller)) return { outcome: 'not_found' };
    if (meta.status === 'cancelled') return { outcome: 'cancelled', view: this.render(meta) };
    if (isTerminal(meta.status)) return { outcome: 'finished', view: this.render(meta) };
    this.inflight?.abort(new RunCancelled());
    const config = this.config();
    const events: EventInput[] = [{ type: 'error', data: { code: 'cancelled', message: 'the run was cancelled by its client' } }];
    const partial = this.partialOf(meta, config);
    if (partial) events.push({ type: 'answer', data: partial });
    const ended = await this.finish(meta, 'cancelled', events, config);
    return { outcome: 'cancelled', view: this.render(ended) };
  }

  /** GET /events?after=N: replay stored events after N, then follow live until the run ends. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const meta = this.store.meta();
    const caller = url.searchParams.get('caller') ?? undefined;
    if (!meta || !visibleTo(meta, caller)) return Response.json({ error: { code: 'not_found', message: 'no such run' } }, { status: 404 });
    const after = Math.max(0, Number(url.searchParams.get('after') ?? '0') || 0);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    // Replay and subscribe without an await in between, so no event falls into a gap.
    for (const e of this.store.eventsAfter(after)) this.write(writer, sseFrame(e));
    if (isTerminal(meta.status)) {
      writer.close().catch(() => {});
    } else {
      this.subscribers.add(writer);
      this.write(writer, sseComment('subscribed'));
      this.ensureHeartbeat(this.config().SSE_HEARTBEAT_MS);
    }
    return new Response(readable, { headers: SSE_HEADERS });
  }

  override async alarm(): Promise<void> {
    if (this.stepping) return this.watchdog();
    this.stepping = true;
    try {
      await this.advance();
    } finally {
      this.stepping = false;
    }
  }

  /**
   * A step is still running in this instance. Past the run's wall time it is abandoned: the run ends `limited` now,
   * and whatever the step returns later is dropped. Otherwise keep a watchdog armed in case the instance dies.
   */
  private async watchdog(): Promise<void> {
    const meta = this.store.meta();
    if (!meta || isTerminal(meta.status)) return;
    const config = this.config();
    const limits = limitsFor(config, meta.request);
    const remaining = limits.maxWallMs - (Date.now() - meta.startedAt);
    if (remaining > 0) return this.ctx.storage.setAlarm(Date.now() + Math.min(WATCHDOG_MS, remaining + 1));
    const err = wallTimeError(limits.maxWallMs);
    this.inflight?.abort(err);
    await this.limited(meta, this.partialOf(meta, config), err, config);
  }

  private async advance(): Promise<void> {
    const meta = this.store.meta();
    if (!meta || isTerminal(meta.status)) return;
    const config = this.config();
    const limits = limitsFor(config, meta.request);
    const strategy = strategyFor(meta.request.mode, config);
    if (!strategy) {
      return void (await this.finish(meta, 'failed', [{ type: 'error', data: { code: 'unknown_mode', message: `mode "${meta.request.mode}" is not available` } }], config));
    }
    const llm = createLLM(config, { AI: (this.env as { AI?: Ai }).AI });
    if (!llm.ok) return void (await this.finish(meta, 'failed', [{ type: 'error', data: { code: 'llm_unavailable', message: llm.reason } }], config));

    const now = Date.now();
    if (meta.steps >= limits.maxSteps) return this.limited(meta, strategy.partial?.(meta.state), new LimitError('steps', `the run reached its limit of ${limits.maxSteps} steps`), config);
    const remaining = limits.maxWallMs - (now - meta.startedAt);
    if (remaining <= 0) return this.limited(meta, strategy.partial?.(meta.state), wallTimeError(limits.maxWallMs), config);

    // One controller per step: the deadline, a cancel or the watchdog abort the step's model and tool calls.
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(wallTimeError(limits.maxWallMs)), remaining);
    this.inflight = controller;
    const usage = structuredClone(meta.usage);
    const ctx = createRunContext({
      runId: meta.runId,
      request: meta.request,
      config,
      llm: llm.llm,
      services: createServices(config, this.env as never),
      tools: createToolRegistry(config),
      usage,
      llmLimits: { maxLLMCalls: limits.maxLLMCalls, maxTokens: limits.maxTokens },
      signal: controller.signal,
    });

    let state = meta.state;
    await this.ctx.storage.setAlarm(Date.now() + Math.min(WATCHDOG_MS, remaining + 1));
    try {
      if (meta.status === 'queued') {
        state = await untilAborted(Promise.resolve(strategy.start(ctx)), controller.signal);
        meta.status = 'running';
        await this.index(() => indexRunStatus(this.db(), meta.runId, { status: 'running' }));
      }
      const outcome = await untilAborted(strategy.step(state, ctx), controller.signal);
      // A cancel or the watchdog may have ended the run while this step ran; its result is not wanted then.
      if (this.endedMeanwhile()) return;
      const next: RunMeta = { ...meta, state: outcome.state, usage, steps: meta.steps + 1 };
      if (outcome.done) {
        const ending = honestEnding(outcome.events);
        return void (await this.finish(next, ending.status, ending.events, config));
      }
      this.append(next, outcome.events, config);
      // A step that ran past the wall time (synchronous work holds the timer back) is kept, and ends the run.
      if (Date.now() - meta.startedAt > limits.maxWallMs) {
        return this.limited(next, strategy.partial?.(outcome.state), wallTimeError(limits.maxWallMs, true), config);
      }
      await this.ctx.storage.setAlarm(Date.now());
    } catch (err) {
      if (this.endedMeanwhile()) return;
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      const next: RunMeta = { ...meta, state, usage };
      if (reason instanceof LimitError) return this.limited(next, strategy.partial?.(state), reason, config);
      const code = reason instanceof LLMError ? 'llm_error' : 'step_failed';
      const message = reason instanceof Error ? reason.message : String(reason);
      const partial = strategy.partial?.(state);
      return void (await this.finish(next, 'failed', [{ type: 'error', data: { code, message } }, ...(partial ? [{ type: 'answer' as const, data: partial }] : [])], config));
    } finally {
      clearTimeout(deadline);
      if (this.inflight === controller) this.inflight = undefined;
    }
  }

  private endedMeanwhile(): boolean {
    const current = this.store.meta();
    return !current || isTerminal(current.status);
  }

  /** The strategy's best answer so far, for a run that ends early; never lets a broken partial hide the end. */
  private partialOf(meta: RunMeta, config: Config): AnswerData | null {
    if (meta.state === undefined) return null;
    try {
      return strategyFor(meta.request.mode, config)?.partial?.(meta.state) ?? null;
    } catch {
      return null;
    }
  }

  private async limited(meta: RunMeta, partial: AnswerData | null | undefined, err: LimitError, config: Config): Promise<void> {
    const events: EventInput[] = [{ type: 'error', data: { code: `limit_${err.limit}`, message: err.message } }];
    if (partial) events.push({ type: 'answer', data: partial });
    await this.finish(meta, 'limited', events, config);
  }

  /** Stores the last events and `done`, closes the streams, updates the run index, then answers those who wait. */
  private async finish(meta: RunMeta, status: RunStatus, events: EventInput[], config: Config): Promise<RunMeta> {
    const finishedAt = Date.now();
    const ended: RunMeta = { ...meta, status, finishedAt };
    const done: EventInput = {
      type: 'done',
      data: { status, usage: ended.usage, timings: { totalMs: finishedAt - meta.startedAt, steps: ended.steps } },
    };
    const stored = this.append(ended, [...events, done], config);
    // The watchdog armed for this step has nothing left to guard.
    this.ctx.storage.deleteAlarm().catch(() => {});
    for (const w of this.subscribers) w.close().catch(() => {});
    this.subscribers.clear();
    this.stopHeartbeat();
    const answer = [...stored].reverse().find((e) => e.type === 'answer');
    await this.index(() =>
      indexRunStatus(this.db(), meta.runId, {
        status,
        answer: answer?.type === 'answer' ? answer.data.answer : null,
        durationMs: finishedAt - meta.startedAt,
      }),
    );
    // Rendering reads every event back; only do it when someone is waiting for the result.
    const waiters = this.waiters.splice(0);
    if (waiters.length) {
      const view = this.render(ended);
      for (const resolve of waiters) resolve(view);
    }
    return ended;
  }

  /** The run index is a convenience for listing: a failed write is logged, never a reason to fail the run. */
  private async index(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      console.error('run index write failed', err instanceof Error ? err.message : String(err));
    }
  }

  private db(): D1Database {
    return (this.env as unknown as { DB: D1Database }).DB;
  }

  private append(meta: RunMeta, events: EventInput[], config: Config): RunEvent[] {
    const formatted = events.map((e) => (e.type === 'answer' ? { ...e, data: applyAnswerFormat(e.data, meta.request) } : e));
    const stored = this.store.commit(meta, formatted, Date.now(), (s) => redact(s, config.secrets));
    for (const e of stored) for (const w of this.subscribers) this.write(w, sseFrame(e));
    return stored;
  }

  private write(writer: WritableStreamDefaultWriter<Uint8Array>, chunk: Uint8Array) {
    // Not awaited: a slow or gone client must never hold up the run. A failed write drops the subscriber.
    writer.write(chunk).catch(() => this.subscribers.delete(writer));
  }

  private ensureHeartbeat(everyMs: number) {
    this.heartbeat ??= setInterval(() => {
      if (this.subscribers.size === 0) return this.stopHeartbeat();
      for (const w of this.subscribers) this.write(w, sseComment('keep-alive'));
    }, everyMs);
  }

  private stopHeartbeat() {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private render(meta: RunMeta): RunView {
    const end = meta.finishedAt ?? Date.now();
    return runView({
      runId: meta.runId,
      request: meta.request,
      status: meta.status,
      usage: meta.usage,
      timings: { totalMs: end - meta.startedAt, steps: meta.steps },
      events: this.store.eventsAfter(0),
    });
  }

  private config(): Config {
    return loadConfig(this.env as unknown as Record<string, unknown>);
  }
}

/**
 * A run succeeds only with an answer: a strategy that ends with an error event, or with no answer or an empty
 * one, ends `failed` (with an error that says so), never `succeeded` with answer "". "I don't know" is an answer.
 */
export const honestEnding = (events: EventInput[]): { status: RunStatus; events: EventInput[] } => {
  const answer = [...events].reverse().find((e) => e.type === 'answer');
  const answered = answer?.type === 'answer' && answer.data.answer.trim() !== '';
  const failed = events.some((e) => e.type === 'error');
  if (answered && !failed) return { status: 'succeeded', events };
  // An empty answer is no answer: drop it rather than show "" as the run's result.
  const kept = events.filter((e) => !(e.type === 'answer' && !e.data.answer.trim()));
  if (failed) return { status: 'failed', events: kept };
  return { status: 'failed', events: [...kept, { type: 'error', data: { code: 'no_answer', message: 'the run ended without an answer' } }] };
};

const wallTimeError = (limitMs: number, overran = false) =>
  new LimitError('wallTime', overran ? `a step ran past the run's wall-time limit of ${limitMs} ms` : `the run reached its wall-time limit of ${limitMs} ms`);

/**
 * A step may not outlive its signal: a hung model call, a tool that ignores the signal, or a cancel would
 * otherwise hold the run. The abandoned work's result is dropped.
 */
const untilAborted = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
