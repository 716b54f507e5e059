import { I_DONT_KNOW } from '../../engine/attribution/attribute';
import type { AnswerDraft, RunContext, StepEvent, StepOutcome, Strategy } from '../../engine/types';
import type { SelectionMode } from '../../fewshot';
import { withAgentSettings, type AgentState } from './agent-state';
import { answerEntities, entitiesFromTrace } from './answer-entities';
import type { LibraryLoader } from './examples';
import { agreedAnswer } from './agreed';
import { traceClaims } from './claims';
import { startAgentLoop, stepAgentLoop } from './loop';
import { answerSources, bestAvailable, collectAnswers, mergeFinalAnswer } from './merge';
import { agentOptions, type AgentOptions } from './options';
import { AGENT_RECIPES } from './recipes';
import { sourcesOfScope, type Scope } from './scope';
import { declaredAnswers } from './trace';

export interface AgentStrategyOptions {
  mode: string;
  description: string;
  /** Forces a selection mode (the zero-shot and random-fewshot baselines); otherwise `options.fewshot`. */
  selection?: SelectionMode;
  library?: LibraryLoader;
  /** `text` / `graph`: the single-source agents (unstructured-only, structured-only). Default hybrid. */
  scope?: Scope;
}

/**
 * Each source's answer for this agent: its declarations first; ours falls back to reading the trace, the paper reads
 * only what the agent declared. A restricted agent reports only its own source.
 */
export const agentAnswers = (state: AgentState): Record<string, string> => {
  const answers = collectAnswers(
    state.turns,
    state.question,
    {
      ...(state.withParametric ? { parametric: state.parametric?.answer } : {}),
      ...(state.extracted !== undefined ? { agent: state.extracted } : {}),
    },
    { inferFromTrace: AGENT_RECIPES[state.recipe].answersFromTrace },
  );
  const own = sourcesOfScope(state.scope);
  for (const source of ['wikipedia', 'wikidata'] as const) if (!own.includes(source)) delete answers[source];
  return answers;
};

/** The "Assistant Response" paragraph of the agent's final turn, if it wrote one. */
export const agentResponse = (state: AgentState): string | undefined => [...state.turns].reverse().find((t) => t.response)?.response;

/**
 * A single-source agent's answer, with no merge call (the paper's text-only and graph-only pipelines report their
 * agent's answer as it is). Ours: the agent's final answer, else its source's; the paper: the declared source answer.
 */
const singleSourceAnswer = (state: AgentState, answers: Record<string, string>): string => {
  const source = sourcesOfScope(state.scope)[0];
  if (AGENT_RECIPES[state.recipe].singleSourceAnswer === 'declared') return (declaredAnswers(state.turns)?.[source] || answers.agent) ?? I_DONT_KNOW;
  return answers.agent ?? answers[source] ?? I_DONT_KNOW;
};

/**
 * The run's ending without the merge call, when the sources verified in the evidence agree (agreed.ts): the step's
 * own events (`before`), the note that the merge is skipped, and the answer with its entities; else undefined.
 */
const agreedEnding = async (state: AgentState, ctx: RunContext<AgentOptions>, before: StepEvent[] = []): Promise<StepOutcome<AgentState> | undefined> => {
  const answers = agentAnswers(state);
  const agreed = agreedAnswer(ctx, { turns: state.turns, answers, claims: traceClaims(answers, state.turns), style: ctx.options.answerStyle, recipe: state.recipe });
  if (!agreed) return undefined;
  const entities = await answerEntities(ctx, state.turns, agreed.draft.answer);
  return { state, done: true, events: [...before, ...agreed.events, { type: 'answer', data: { ...agreed.draft, entities } }] };
};

/**
 * The HQA ReAct loop as a step machine. One step is one of:
 *  think   — one agent model call (the first one runs the parametric call beside it), parsed into a turn;
 *  act     — one tool call for the pending action;
 *  extract — after the iteration limit, one call that answers from the trajectory;
 *  final   — the merge call (purpose `final`) that writes the answer from every source's answer; ours skips it
 *            when the sources verified in the evidence agree (agreed.ts).
 * A single-source agent (scope text or graph) has no parametric call and no merge: it answers from its source.
 */
export const createAgentStrategy = (opts: AgentStrategyOptions): Strategy<AgentState, AgentOptions> => {
  const scope = opts.scope ?? 'hybrid';
  return {
    mode: opts.mode,
    description: opts.description,
    // A library of this build, unless the agent was given a loader of its own (which says what it serves).
    options: agentOptions(!opts.library, () => opts.selection),

    start: (ctx) => startAgentLoop(ctx, { scope, withParametric: scope === 'hybrid', selection: opts.selection, library: opts.library }),

    // A state stored before the recipe, the scope and the closed-book switch were kept in it.
    upgradeState: (state) => withAgentSettings(state) as AgentState,

    async step(state, ctx) {
      if (state.phase !== 'final') {
        const next = await stepAgentLoop(state, ctx);
        // The last agent turn and an answer that needs no model call end in one step: one wake-up (alarm and commit)
        // fewer between the final turn and the answer. Any step that would call the model stays a step of its own.
        const ended = next.state.phase === 'final' && next.state.scope === 'hybrid' ? await agreedEnding(next.state, ctx, next.events) : undefined;
        return ended ?? next;
      }
      const answers = agentAnswers(state);
      if (state.scope !== 'hybrid') {
        const answer = singleSourceAnswer(state, answers);
        const entities = await answerEntities(ctx, state.turns, answer);
        const data: AnswerDraft = { answer, answers, sources: answerSources(state.turns, answers), claims: traceClaims(answers, state.turns), entities };
        return { state, done: true, events: [{ type: 'answer', data }] };
      }
      // A run stored before the answer joined the final turn's step reaches it here.
      const ended = await agreedEnding(state, ctx);
      if (ended) return ended;
      const answer = await mergeFinalAnswer(ctx, {
        question: ctx.request.question,
        turns: state.turns,
        answers,
        claims: traceClaims(answers, state.turns),
        style: ctx.options.answerStyle,
        abstain: ctx.options.abstain,
        recipe: state.recipe,
        context: agentResponse(state),
      });
      const entities = await answerEntities(ctx, state.turns, answer.answer);
      return { state, done: true, events: [{ type: 'answer', data: { ...answer, entities } }] };
    },

    partial(state): AnswerDraft | null {
      // No state: the run failed in start (e.g. an unknown few-shot library), before anything was gathered.
      if (!state) return null;
      const answers = agentAnswers(state);
      const answer = bestAvailable(answers);
      const { entities } = entitiesFromTrace(state.turns, answer);
      return {
        answer,
        answers,
        sources: answerSources(state.turns, answers),
        claims: traceClaims(answers, state.turns),
        entities,
      };
    },
  };
};

export const agentStrategy = createAgentStrategy({
  mode: 'agent',
  description: 'HQA ReAct agent over Wikipedia and Wikidata with DPP-selected human solution processes and a final merge.',
});
