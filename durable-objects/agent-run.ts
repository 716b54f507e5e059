import { DurableObject } from 'cloudflare:workers';
import { loadConfig, type Config } from '../src/config';
import { loadArchive } from '../src/engine/archives';
import { encodeArchive, parseArchive, recordingEvidence, replayingEvidence, sha256Hex, recordingKg, replayingKg, type EvidenceRecord, type KgGateway, type RecordedResponse, type ReplaySource } from '../src/evidence/recording';
import type { Evidence } from '../src/evidence/types';
import { applyAnswerFormat } from '../src/engine/answer-format';
import { createRunContext } from '../src/engine/context';
import { limitsFor } from '../src/engine/limits';
import { redact } from '../src/engine/redact';
import { runView, type RunView } from '../src/engine/run-view';
import { createServices, createToolRegistry } from '../src/engine/services';
import { SSE_HEADERS, sseComment, sseFrame } from '../src/engine/sse';
import { indexRunCreated, indexRunStatus, OPEN_OWNER, type RunSummary } from '../src/engine/run-index';
import { isTerminal, LimitError, RunCancelled, type AnswerData, type EventInput, type RunEvent, type RunRequest, type RunStatus, type Usage } from '../src/engine/types';
import { createLLM } from '../src/llm';
import { LLMError } from '../src/llm/types';
import { strategyFor, strategyTools } from '../src/strategies';
import { RunStore, type Checkpoint, type RawEvent, type RunMeta } from './run-store';

/** What a fork copies from its parent: the request, the stored events up to the fork point and the checkpoints. */
export interface ForkSource {
  request: RunRequest;
  events: RawEvent[];
  checkpoints: Checkpoint[];
  replay?: { archiveId: string };
}

export type ForkSourceOutcome = { ok: true; source: ForkSource } | { ok: false; code: 'not_found' | 'invalid_step'; message: string };

/** The archive a run replays: `options.evidence.replay`, else the deploy-wide EVIDENCE_REPLAY. */
const replayArchiveOf = (request: RunRequest, config: Config): string | undefined => {
  const fromOptions = (request.options?.evidence as { replay?: unknown } | undefined)?.replay;
  return typeof fromOptions === 'string' ? fromOptions : config.EVIDENCE_REPLAY || undefined;
};

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
  /** The replayed archive, parsed once per instance. */
  private replaySource: { archiveId: string; records: Map<string, EvidenceRecord> } | undefined;

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
    const archiveId = replayArchiveOf(request, config);
    if (archiveId) meta.replay = { archiveId };
    this.append(meta, [{ type: 'run', data: { runId, variant: request.variant, mode: request.mode, question: request.question } }], config, true);
    await this.index(() => indexRunCreated(this.db(), { runId, owner: owner ?? OPEN_OWNER, question: request.question, variant: request.variant, mode: request.mode, createdAt: now }));
    await this.ctx.storage.setAlarm(now);
    return { created: true };
  }

  /**
   * A fork's first half, asked of the parent: its stored events up to step `fromStep` and the state after it.
   * Nothing of the parent changes. Step 0 is the run before its first step; the step that ended a run has no state
   * to continue from.
   */
  async forkSource(fromStep: number, caller?: string): Promise<ForkSourceOutcome> {
    const meta = this.store.meta();
    if (!meta || !visibleTo(meta, caller)) return { ok: false, code: 'not_found', message: 'no such run' };
    const all = this.store.checkpoints();
    const at = all.find((c) => c.step === fromStep);
    if (!at) {
      const steps = all.map((c) => c.step);
      const range = steps.length ? `${steps[0]}–${steps[steps.length - 1]}` : 'none yet';
      return { ok: false, code: 'invalid_step', message: `fromStep ${fromStep} is not a stored step of this run (steps a fork can start after: ${range})` };
    }
    const checkpoints = all.filter((c) => c.step <= fromStep).map((c) => this.store.checkpoint(c.step)!);
    return { ok: true, source: { request: meta.request, events: this.store.rawEventsUpTo(at.lastEventId), checkpoints, replay: meta.replay } };
  }

  /** A fork's second half, on the new run: copy the parent's events as stored, restore the state, go on. */
  async startFork(runId: string, request: RunRequest, parent: { runId: string; fromStep: number }, source: ForkSource, owner?: string): Promise<{ created: boolean }> {
    if (this.store.meta()) return { created: false };
    const config = this.config();
    const now = Date.now();
    const at = source.checkpoints[source.checkpoints.length - 1];
    const archiveId = replayArchiveOf(request, config);
    const meta: RunMeta = {
      runId,
      request,
      status: at.state === undefined ? 'queued' : 'running',
      ...(at.state === undefined ? {} : { state: at.state }),
      usage: at.usage,
      steps: at.step,
      startedAt: now,
      owner: owner ?? OPEN_OWNER,
      parent,
      ...(archiveId ? { replay: { archiveId } } : {}),
    };
    // The `run` event names this run; every later event is the parent's, byte for byte.
    const events = source.events.map((e) =>
      e.type === 'run' ? { ...e, data: JSON.stringify({ runId, variant: request.variant, mode: request.mode, question: request.question }) } : e,
    );
    this.store.seed(meta, events, source.checkpoints);
    await this.index(() => indexRunCreated(this.db(), { runId, owner: owner ?? OPEN_OWNER, question: request.question, variant: request.variant, mode: request.mode, createdAt: now }));
    await this.ctx.storage.setAlarm(now);
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
    return encodeArchive(this.store.records(), { runs: [meta.runId] });
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
    const config = withModel(this.config(), meta.request);
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
    let replay: ReplaySource | undefined;
    if (meta.replay) {
      const loaded = await this.loadReplay(meta.replay.archiveId);
      if (!loaded) {
        clearTimeout(deadline);
        this.inflight = undefined;
        const message = `evidence archive "${meta.replay.archiveId}" was not found; upload one with POST /v1/archives`;
        return void (await this.finish(meta, 'failed', [{ type: 'error', data: { code: 'archive_not_found', message } }], config));
      }
      replay = loaded;
    }
    const services = this.evidenceServices(config, meta.request, usage, replay);
    const ctx = createRunContext({
      runId: meta.runId,
      request: meta.request,
      config,
      llm: llm.llm,
      services,
      kg: this.kgGateway(config, usage, replay),
      tools: createToolRegistry(strategyTools(config)),
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
      this.append(next, outcome.events, config, true);
      // A step that ran past the wall time (synchronous work holds the timer back) is kept, and ends the run.
      if (Date.now() - meta.startedAt > limits.maxWallMs) {
        return this.limited(next, strategy.partial?.(outcome.state), wallTimeError(limits.maxWallMs, true), config);
      }
      await this.ctx.storage.setAlarm(Date.now());
    } catch (err) {
      if (this.endedMeanwhile()) return;
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      const next: RunMeta = { ...meta, state, usage };
      // A start() that threw leaves no state: partialOf answers null then instead of handing undefined to the strategy.
      if (reason instanceof LimitError) return this.limited(next, this.partialOf(next, config), reason, config);
      const code = reason instanceof LLMError ? 'llm_error' : 'step_failed';
      const message = reason instanceof Error ? reason.message : String(reason);
      const partial = this.partialOf(next, config);
      return void (await this.finish(next, 'failed', [{ type: 'error', data: { code, message } }, ...(partial ? [{ type: 'answer' as const, data: partial }] : [])], config));
    } finally {
      clearTimeout(deadline);
      if (this.inflight === controller) this.inflight = undefined;
    }
  }

  /** The run's services with its evidence recorded, and served from the archive when the run replays one. */
  private evidenceServices(config: Config, request: RunRequest, usage: Usage, replay: ReplaySource | undefined) {
    // Test builds only: a run may ask for live evidence, so a workerd test can record against a stubbed Wikimedia.
    const evidenceConfig: Config = config.TEST_MODE && request.options?.testEvidence === 'live' ? { ...config, EVIDENCE: 'live' } : config;
    const base = createServices(evidenceConfig, this.env as never);
    const onMiss = () => {
      usage.replayMisses = (usage.replayMisses ?? 0) + 1;
    };
    let evidence: Evidence | undefined;
    return {
      ...base,
      evidence: () => (evidence ??= recordingEvidence(replay ? replayingEvidence(replay, onMiss) : base.evidence(), (r) => this.keepRecord(r, config))),
    };
  }

  /** CRAG KG API calls: answered from the archive in a replay, recorded with the run otherwise. */
  private kgGateway(config: Config, usage: Usage, replay: ReplaySource | undefined): KgGateway {
    const record = recordingKg((r) => this.keepRecord(r, config));
    if (!replay) return record;
    const fromArchive = replayingKg(replay, () => (usage.replayMisses = (usage.replayMisses ?? 0) + 1));
    return (call, send) => record(call, () => fromArchive(call, send));
  }

  /** Stores one record, scrubbed of secrets; its body is addressed by its SHA-256. */
  private async keepRecord(record: EvidenceRecord, config: Config): Promise<void> {
    const scrub = (s: string) => redact(s, config.secrets);
    const request = scrub(JSON.stringify(record.request));
    const response = record.response;
    if ('body' in response) {
      const body = scrub(JSON.stringify(response.body));
      this.store.record(scrub(record.key), request, { hash: await sha256Hex(body), body });
    } else this.store.record(scrub(record.key), request, { error: scrub(JSON.stringify(response.error)) });
  }

  private async loadReplay(archiveId: string): Promise<ReplaySource | null> {
    if (this.replaySource?.archiveId === archiveId) return sourceOf(this.replaySource.records);
    const text = await loadArchive(this.env as unknown as { DB: D1Database; ARCHIVES?: R2Bucket }, archiveId);
    if (text === null) return null;
    const { records } = parseArchive(text);
    this.replaySource = { archiveId, records };
    return sourceOf(records);
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

  private append(meta: RunMeta, events: EventInput[], config: Config, checkpoint = false): RunEvent[] {
    const formatted = events.map((e) => (e.type === 'answer' ? { ...e, data: applyAnswerFormat(e.data, meta.request) } : e));
    const stored = this.store.commit(meta, formatted, Date.now(), (s) => redact(s, config.secrets), checkpoint);
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
      replay: meta.replay ? { archiveId: meta.replay.archiveId, misses: meta.usage.replayMisses ?? 0 } : null,
      parent: meta.parent ?? null,
      forks: meta.forks ?? [],
      checkpoints: this.store.checkpoints(),
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

const sourceOf = (records: Map<string, EvidenceRecord>): ReplaySource => ({
  get: (key: string): RecordedResponse | undefined => records.get(key)?.response,
});

/** `options.model` (a fork's `model`) runs the run on another model than the deploy's LLM_MODEL. */
const withModel = (config: Config, request: RunRequest): Config => {
  const model = request.options?.model;
  return typeof model === 'string' && model.trim() ? { ...config, LLM_MODEL: model.trim() } : config;
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
