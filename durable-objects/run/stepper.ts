import type { Config } from '../../src/config';
import { renderContextPages } from '../../src/engine/attribution/context-documents';
import { answerAsAsked, answersAsAsked, AS_WRITTEN } from '../../src/engine/answer-policy';
import { requestForStep } from '../../src/engine/conversation';
import { CallsInFlight, type CallInFlight } from '../../src/engine/calls-in-flight';
import { PromptHistory } from '../../src/engine/prompt-reuse';
import { indexRunStatus } from '../../src/storage/run-index';
import { withNotes } from '../../src/engine/step-notes';
import { isTerminal, LimitError, type AnswerData, type AnswerDraft } from '../../src/engine/types';
import type { ReplaySource } from '../../src/evidence/recording';
import { LLMError } from '../../src/llm/types';
import { untilAborted } from '../../src/net/until-aborted';
import { sendSpans } from '../../src/telemetry/run-tracing';
import { publicMessage } from '../../src/text/public-message';
import { StoredValueTooLarge } from '../stored-value';
import type { RunMeta, RunStore } from '../run-store';
import { honestEnding, partialOf, wallTimeError } from './ending';
import type { RunEvidence } from './evidence';
import type { RunLedger } from './ledger';
import { modelOf, resolveSetup, type RunSetup, type SetupOutcome } from './setup';
import { stepRun, type StepRun } from './step-context';

/** If the object dies mid-step, this alarm (armed before each step) resumes the run. */
const WATCHDOG_MS = 60_000;
/** A watchdog armed this much sooner than a step would arm it is left as it is. */
const WATCHDOG_SLACK_MS = 30_000;
/** How long one alarm invocation goes on from step to step before handing over to a fresh alarm. */
const STEPS_IN_ONE_ALARM_MS = 20_000;

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
 * last stored step and never repeats one. What the run runs with (config, strategy, tools) is resolved once per
 * instance (./setup.ts); answers are attributed here, once, and given the run's answer policy (abstention, wording:
 * src/engine/answer-policy.ts) before the ledger stores them.
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
  private setup: SetupOutcome | undefined;

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

  /** The run's best answer so far, attributed as stored, for a run that ends early (none when there is nothing). */
  partial(meta: RunMeta): AnswerData | null {
    const setup = this.setupOf(meta);
    const draft: AnswerDraft | null = partialOf(meta, setup.ok ? setup.setup.strategy : undefined);
    return draft && answerAsAsked(this.parts.evidence.attribution(requestForStep(meta.request, meta.state)).answer(draft), setup.ok ? setup.setup.options : AS_WRITTEN);
  }

  /** The config an ending is stored with: the run's own once resolved. */
  configOf(meta: RunMeta): Config {
    const setup = this.setupOf(meta);
    return setup.ok ? setup.setup.config : this.parts.config();
  }

  private setupOf(meta: RunMeta): SetupOutcome {
    return (this.setup ??= resolveSetup(this.parts.config(), meta.request));
  }

  /**
   * A step is still running in this instance. Past the run's wall time it is abandoned: the run ends `limited` now,
   * and whatever the step returns later is dropped. Otherwise keep a watchdog armed in case the instance dies.
   */
  private async watchdog(): Promise<void> {
    const meta = this.parts.store.meta();
    if (!meta || isTerminal(meta.status)) return;
    const setup = this.setupOf(meta);
    const maxWallMs = setup.ok ? setup.setup.limits.maxWallMs : this.parts.config().MAX_WALL_MS;
    const remaining = maxWallMs - (Date.now() - meta.startedAt);
    if (remaining > 0) return this.parts.storage.setAlarm(Date.now() + Math.min(WATCHDOG_MS, remaining + 1));
    const err = wallTimeError(maxWallMs);
    this.inflight?.abort(err);
    await this.parts.ledger.limited(meta, this.partial(meta), err, this.configOf(meta));
  }

  /** Runs one step; 'next' when the run goes on. */
  private async advance(): Promise<'next' | undefined> {
    const meta = this.parts.store.meta();
    if (!meta || isTerminal(meta.status)) return;
    const resolved = this.setupOf(meta);
    if (!resolved.ok) return this.fail(meta, resolved.code, resolved.message);
    const { setup } = resolved;
    const llm = modelOf(setup, this.parts.env);
    if (!llm.ok) return this.fail(meta, 'llm_unavailable', llm.reason);
    const { limits } = setup;
    if (meta.steps >= limits.maxSteps) return this.limited(meta, new LimitError('steps', `the run reached its limit of ${limits.maxSteps} steps`));
    const remaining = limits.maxWallMs - (Date.now() - meta.startedAt);
    if (remaining <= 0) return this.limited(meta, wallTimeError(limits.maxWallMs));

    const replay = await this.replayOf(meta, setup.config);
    // Cancelled while the archive was looked up (only the first step of an instance looks).
    if (this.endedMeanwhile()) return;
    if (replay === null) return this.fail(meta, 'archive_not_found', `evidence archive "${meta.replay!.archiveId}" was not found; upload one with POST /v1/archives`);
    await this.armWatchdog(remaining);
    // One controller per step: the deadline, a cancel or the watchdog abort the step's model and tool calls.
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(wallTimeError(limits.maxWallMs)), remaining);
    this.inflight = controller;
    const step = stepRun({ ...this.parts, calls: this.calls, prompts: this.prompts }, meta, setup, llm.llm, replay, controller.signal);
    // The state the step began from, or the one the strategy's start made (stored with a failure).
    const progress = { state: meta.state };
    let stepError: string | undefined;
    try {
      return await this.runStep(meta, setup, step, progress, controller.signal);
    } catch (err) {
      if (this.endedMeanwhile()) return;
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      stepError = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
      return await this.stepFailed(step.timed({ ...meta, state: progress.state, usage: step.usage }), setup, reason);
    } finally {
      clearTimeout(deadline);
      if (this.inflight === controller) this.inflight = undefined;
      // Sent after the step's result is stored, in the background: a slow or dead collector never holds a step up.
      if (step.trace) sendSpans(setup.config, step.trace.end({}, stepError), this.parts.waitUntil);
    }
  }

  /**
   * Arms the watchdog for this step, unless one is armed already within WATCHDOG_SLACK_MS before that time: setting it
   * again is a storage write of its own, which the step's sync would then wait for (on disk, a commit per step for
   * nothing). An alarm that fires during a step only re-arms it (see `watchdog`).
   */
  private async armWatchdog(remaining: number): Promise<void> {
    const at = Date.now() + Math.min(WATCHDOG_MS, remaining + 1);
    const armed = await this.parts.storage.getAlarm();
    if (armed !== null && armed <= at && armed >= at - WATCHDOG_SLACK_MS) return;
    await this.parts.storage.setAlarm(at);
  }

  /** The archive a replaying run reads from: undefined when it replays none, null when it is not there. */
  private async replayOf(meta: RunMeta, config: Config): Promise<ReplaySource | null | undefined> {
    return meta.replay ? this.parts.evidence.loadReplay(meta, config) : undefined;
  }

  /** The step itself: the strategy's start (first step) and step, then its outcome stored, or the run ended. */
  private async runStep(meta: RunMeta, setup: RunSetup, step: StepRun, progress: { state: unknown }, signal: AbortSignal): Promise<'next' | undefined> {
    const { ledger } = this.parts;
    const { strategy, config, limits } = setup;
    if (meta.status === 'queued') {
      progress.state = await untilAborted(Promise.resolve(strategy.start(step.ctx)), signal);
      meta.status = 'running';
      // Not awaited: the index keeps its writes in order, and the first model call need not wait for D1.
      this.parts.waitUntil(ledger.index(() => indexRunStatus(this.parts.env.DB, meta.runId, { status: 'running' })));
    }
    const stepped = await untilAborted(strategy.step(progress.state, step.ctx), signal);
    // A cancel or the watchdog may have ended the run while this step ran; its result is not wanted then.
    if (this.endedMeanwhile()) return;
    let stepEvents = stepped.events;
    const answerAt = stepEvents.findIndex((e) => e.type === 'answer');
    if (answerAt >= 0) {
      // Storing an answer verifies it against the supplied pages: read them as a reader sees them first, in slices;
      // then a model judges its citations' support, when the run asks (options.supportCheck: "model").
      await renderContextPages(meta.request.context);
      const checked = await untilAborted(step.checkSupport(stepEvents), signal);
      if (this.endedMeanwhile()) return;
      stepEvents = [...stepEvents.slice(0, answerAt), ...checked, ...stepEvents.slice(answerAt)];
    }
    const events = withNotes(stepEvents, step.notes);
    const next: RunMeta = step.timed({ ...meta, state: stepped.state, usage: step.usage, steps: meta.steps + 1 });
    if (stepped.done) {
      const ending = honestEnding(events);
      return void (await ledger.finish(next, ending.status, answersAsAsked(step.attribution.events(ending.events), setup.options), config));
    }
    ledger.append(next, answersAsAsked(step.attribution.events(events), setup.options), config, true);
    // A step that ran past the wall time (synchronous work holds the timer back) is kept, and ends the run.
    if (Date.now() - meta.startedAt > limits.maxWallMs) return this.limited(next, wallTimeError(limits.maxWallMs, true));
    return 'next';
  }

  /** A step that threw: a limit ends the run `limited`, anything else `failed`, each with the best answer so far. */
  private async stepFailed(next: RunMeta, setup: RunSetup, reason: unknown): Promise<undefined> {
    if (reason instanceof LimitError) return this.limited(next, reason);
    const code = reason instanceof LLMError || reason instanceof StoredValueTooLarge ? reason.code : 'step_failed';
    const message = publicMessage(reason instanceof Error ? reason.message : String(reason));
    // A start() that threw leaves no state: partial answers null then instead of handing undefined to the strategy.
    const partial = this.partial(next);
    await this.parts.ledger.finish(next, 'failed', [{ type: 'error', data: { code, message } }, ...(partial ? [{ type: 'answer' as const, data: partial }] : [])], setup.config);
    return undefined;
  }

  private async fail(meta: RunMeta, code: string, message: string): Promise<undefined> {
    await this.parts.ledger.finish(meta, 'failed', [{ type: 'error', data: { code, message } }], this.configOf(meta));
    return undefined;
  }

  private async limited(meta: RunMeta, err: LimitError): Promise<undefined> {
    await this.parts.ledger.limited(meta, this.partial(meta), err, this.configOf(meta));
    return undefined;
  }

  private endedMeanwhile(): boolean {
    const current = this.parts.store.meta();
    return !current || isTerminal(current.status);
  }
}
