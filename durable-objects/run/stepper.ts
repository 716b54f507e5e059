import type { Config } from '../../src/config';
import { renderContextPages } from '../../src/engine/attribution/context-documents';
import { createRunContext } from '../../src/engine/context';
import { forRequest, requestForStep } from '../../src/engine/conversation';
import { CallsInFlight, type CallInFlight } from '../../src/engine/calls-in-flight';
import { PromptHistory } from '../../src/engine/prompt-reuse';
import { limitsFor } from '../../src/engine/limits';
import { indexRunStatus } from '../../src/storage/run-index';
import { createToolRegistry } from '../../src/engine/services';
import type { Delta } from '../../src/engine/live-deltas';
import { withNotes } from '../../src/engine/step-notes';
import { isTerminal, LimitError, type RunRequest } from '../../src/engine/types';
import type { ReplaySource } from '../../src/evidence/recording';
import { sendSpans, startStepTrace, tracedServices } from '../../src/telemetry/run-tracing';
import { createLLM } from '../../src/llm';
import { LLMError } from '../../src/llm/types';
import { StoredValueTooLarge } from '../stored-value';
import { strategyFor, strategyTools } from '../../src/strategies';
import type { RunMeta, RunStore } from '../run-store';
import { untilAborted } from '../../src/net/until-aborted';
import { honestEnding, partialOf, wallTimeError } from './ending';
import { withTestOverrides, type RunEvidence } from './evidence';
import type { RunLedger } from './ledger';

/** If the object dies mid-step, this alarm (armed before each step) resumes the run. */
const WATCHDOG_MS = 60_000;
/** How long one alarm invocation goes on from step to step before handing over to a fresh alarm. */
const STEPS_IN_ONE_ALARM_MS = 20_000;

/** `options.model` (a fork's `model`) runs the run on another model than the deploy's LLM_MODEL. */
const withModel = (config: Config, request: RunRequest): Config => {
  const model = request.options?.model;
  return typeof model === 'string' && model.trim() ? { ...config, LLM_MODEL: model.trim() } : config;
};

export interface StepperParts {
  storage: DurableObjectStorage;
  env: Env;
  store: RunStore;
  ledger: RunLedger;
  evidence: RunEvidence;
  config: () => Config;
  /** Keeps background work (the step's spans on their way to a collector) alive past the step. */
  waitUntil: (p: Promise<unknown>) => void;
}

/**
 * Drives the run: strategy steps one after another from an alarm (or from start, see `soon`), with the run's limits
 * around each. Each step's outcome and the state after it are stored together, so a new instance resumes from the
 * last stored step and never repeats one.
 */
export class Stepper {
  /** True while this instance runs a step: a second alarm delivery must not run the same step twice. */
  private stepping = false;
  /** Aborts the step in flight: its wall-time deadline, a cancel, or the watchdog. */
  private inflight: AbortController | undefined;
  /** The run's last prompt per purpose, for usage.promptReuse across its steps (while this instance lives). */
  private readonly prompts = new PromptHistory();
  /** The model calls the step in flight waits on, for the run JSON. */
  private readonly calls = new CallsInFlight();

  constructor(private readonly parts: StepperParts) {}

  async alarm(): Promise<void> {
    if (this.stepping) return this.watchdog();
    this.stepping = true;
    const began = Date.now();
    try {
      // The next step runs in this invocation while it is young; a fresh alarm takes over after that, so no one
      // invocation runs for long. Each step is stored before the next begins, so an eviction still resumes there.
      while ((await this.advance()) === 'next') {
        // The step just stored must be on disk before the next one acts: a crash in between would otherwise lose
        // it and run a finished tool call again (in a deploy the output gate holds the next call's requests until
        // then anyway; locally nothing does).
        await this.parts.storage.sync();
        if (Date.now() - began >= STEPS_IN_ONE_ALARM_MS) return void (await this.parts.storage.setAlarm(Date.now()));
      }
    } finally {
      this.stepping = false;
    }
  }

  /**
   * Starts stepping as soon as the current call has answered, rather than when the alarm armed beside it is
   * delivered. The alarm stays armed as the safety net: whichever comes second finds a step running and only keeps
   * the watchdog armed. A failure here is left to that alarm.
   */
  soon(): void {
    setTimeout(() => {
      this.alarm().catch((err: unknown) => console.error('run step failed outside an alarm; the alarm retries it', err instanceof Error ? err.message : String(err)));
    }, 0);
  }

  /** A step is under way in this instance: the run is running even while its first step has stored nothing. */
  busy(): boolean {
    return this.stepping;
  }

  /** The model calls the step under way is waiting on. */
  waitingOn(): CallInFlight[] {
    return this.calls.list();
  }

  /** Abandons the step in flight (its model or tool call); whatever it returns later is dropped. */
  abort(reason: unknown) {
    this.inflight?.abort(reason);
  }

  /**
   * A step is still running in this instance. Past the run's wall time it is abandoned: the run ends `limited` now,
   * and whatever the step returns later is dropped. Otherwise keep a watchdog armed in case the instance dies.
   */
  private async watchdog(): Promise<void> {
    const { store, storage, ledger } = this.parts;
    const meta = store.meta();
    if (!meta || isTerminal(meta.status)) return;
    const config = this.parts.config();
    const limits = limitsFor(config, meta.request);
    const remaining = limits.maxWallMs - (Date.now() - meta.startedAt);
    if (remaining > 0) return storage.setAlarm(Date.now() + Math.min(WATCHDOG_MS, remaining + 1));
    const err = wallTimeError(limits.maxWallMs);
    this.inflight?.abort(err);
    await ledger.limited(meta, partialOf(meta, config), err, config);
  }

  /** Runs one step; 'next' when the run goes on. */
  private async advance(): Promise<'next' | undefined> {
    const { store, storage, ledger, evidence, env } = this.parts;
    const meta = store.meta();
    if (!meta || isTerminal(meta.status)) return;
    const config = withTestOverrides(withModel(this.parts.config(), meta.request), meta.request);
    const limits = limitsFor(config, meta.request);
    // A chat run with earlier turns makes its question self-contained first (src/engine/conversation).
    const strategy = forRequest(strategyFor(meta.request.mode, config), meta.request);
    if (!strategy) {
      return void (await ledger.finish(meta, 'failed', [{ type: 'error', data: { code: 'unknown_mode', message: `mode "${meta.request.mode}" is not available` } }], config));
    }
    const llm = createLLM(config, env);
    if (!llm.ok) return void (await ledger.finish(meta, 'failed', [{ type: 'error', data: { code: 'llm_unavailable', message: llm.reason } }], config));

    const now = Date.now();
    if (meta.steps >= limits.maxSteps) return void (await ledger.limited(meta, strategy.partial?.(meta.state), new LimitError('steps', `the run reached its limit of ${limits.maxSteps} steps`), config));
    const remaining = limits.maxWallMs - (now - meta.startedAt);
    if (remaining <= 0) return void (await ledger.limited(meta, strategy.partial?.(meta.state), wallTimeError(limits.maxWallMs), config));

    // One controller per step: the deadline, a cancel or the watchdog abort the step's model and tool calls.
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(wallTimeError(limits.maxWallMs)), remaining);
    this.inflight = controller;
    const usage = structuredClone(meta.usage);
    let replay: ReplaySource | undefined;
    if (meta.replay) {
      const loaded = await evidence.loadReplay(meta, config);
      if (!loaded) {
        clearTimeout(deadline);
        this.inflight = undefined;
        const message = `evidence archive "${meta.replay.archiveId}" was not found; upload one with POST /v1/archives`;
        return void (await ledger.finish(meta, 'failed', [{ type: 'error', data: { code: 'archive_not_found', message } }], config));
      }
      replay = loaded;
    }
    // Waits at politeness gates and shortened prompts join the step's trace.
    const notes: string[] = [];
    const note = (text: string) => void notes.push(text);
    // With tracing on, the step's model calls, tool calls and evidence requests are recorded as spans under it.
    const trace = startStepTrace(config, meta.runId, meta.steps + 1, meta.request);
    // Keys of the evidence records this step produces, so its tool calls can say what they read.
    const recorded: string[] = [];
    // Whose requests these are at the politeness gates, which serve their queues in turn across keys and runs.
    const party = { key: meta.owner ?? 'open', run: meta.runId };
    const services = evidence.services(config, usage, replay, { signal: controller.signal, usage, note, party }, recorded, meta.startedAt + limits.maxWallMs);
    // The first piece of the answer a model call streams: the run's time to first answer token.
    let firstAnswerAt: number | undefined;
    const live = {
      listening: ledger.live.listening,
      nextCall: ledger.live.nextCall,
      send: (delta: Delta) => {
        if (delta.answer && firstAnswerAt === undefined) firstAnswerAt = Date.now();
        ledger.live.send(delta);
      },
    };
    const timed = (m: RunMeta): RunMeta => (m.firstAnswerAt === undefined && firstAnswerAt !== undefined ? { ...m, firstAnswerAt } : m);
    const ctx = createRunContext({
      runId: meta.runId,
      request: requestForStep(meta.request, meta.state),
      config,
      llm: this.calls.watch(llm.llm),
      services: trace ? tracedServices(services, trace) : services,
      recorded,
      prompts: this.prompts,
      book: () => evidence.book(meta.request),
      tools: createToolRegistry(strategyTools(config)),
      usage,
      llmLimits: { maxLLMCalls: limits.maxLLMCalls, maxTokens: limits.maxTokens },
      signal: controller.signal,
      note,
      party,
      live,
      ...(trace ? { tracer: trace } : {}),
    });
    let stepError: string | undefined;

    let state = meta.state;
    await storage.setAlarm(Date.now() + Math.min(WATCHDOG_MS, remaining + 1));
    try {
      if (meta.status === 'queued') {
        state = await untilAborted(Promise.resolve(strategy.start(ctx)), controller.signal);
        meta.status = 'running';
        // Not awaited: the index keeps its writes in order, and the first model call need not wait for D1.
        this.parts.waitUntil(ledger.index(() => indexRunStatus(env.DB, meta.runId, { status: 'running' })));
      }
      const stepped = await untilAborted(strategy.step(state, ctx), controller.signal);
      // A cancel or the watchdog may have ended the run while this step ran; its result is not wanted then.
      if (this.endedMeanwhile()) return;
      const outcome = { ...stepped, events: withNotes(stepped.events, notes) };
      const next: RunMeta = timed({ ...meta, state: outcome.state, usage, steps: meta.steps + 1 });
      // Storing an answer verifies it against the supplied pages: read them as a reader sees them first, in slices.
      if (outcome.events.some((e) => e.type === 'answer')) await renderContextPages(meta.request.context);
      if (outcome.done) {
        const ending = honestEnding(outcome.events);
        return void (await ledger.finish(next, ending.status, ending.events, config));
      }
      ledger.append(next, outcome.events, config, true);
      // A step that ran past the wall time (synchronous work holds the timer back) is kept, and ends the run.
      if (Date.now() - meta.startedAt > limits.maxWallMs) {
        return void (await ledger.limited(next, strategy.partial?.(outcome.state), wallTimeError(limits.maxWallMs, true), config));
      }
      return 'next';
    } catch (err) {
      if (this.endedMeanwhile()) return;
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      stepError = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
      const next: RunMeta = timed({ ...meta, state, usage });
      // A start() that threw leaves no state: partialOf answers null then instead of handing undefined to the strategy.
      if (reason instanceof LimitError) return void (await ledger.limited(next, partialOf(next, config), reason, config));
      const code = reason instanceof LLMError || reason instanceof StoredValueTooLarge ? reason.code : 'step_failed';
      const message = reason instanceof Error ? reason.message : String(reason);
      const partial = partialOf(next, config);
      return void (await ledger.finish(next, 'failed', [{ type: 'error', data: { code, message } }, ...(partial ? [{ type: 'answer' as const, data: partial }] : [])], config));
    } finally {
      clearTimeout(deadline);
      if (this.inflight === controller) this.inflight = undefined;
      // Sent after the step's result is stored, in the background: a slow or dead collector never holds a step up.
      if (trace) sendSpans(config, trace.end({}, stepError), this.parts.waitUntil);
    }
  }

  private endedMeanwhile(): boolean {
    const current = this.parts.store.meta();
    return !current || isTerminal(current.status);
  }
}
