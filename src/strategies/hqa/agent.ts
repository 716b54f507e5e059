import { contextWindow } from '../../engine/context-window';
import { DATA_FENCE_RULE, fence, oneLine } from '../../engine/prompt-data';
import { recipeOf, type Recipe } from '../../engine/recipe';
import { I_DONT_KNOW } from '../../engine/attribution/attribute';
import type { AnswerDraft, RunContext, StepEvent, StepOutcome, Strategy } from '../../engine/types';
import { restrictLibrary, type SelectionMode } from '../../fewshot';
import { answerEntities, entitiesFromTrace } from './answer-entities';
import { chooseExamples, defaultLibrary, libraryNameFor, readSelectionMode, type LibraryLoader } from './examples';
import { agreedAnswer } from './agreed';
import { traceClaims } from './claims';
import { answerSources, bestAvailable, collectAnswers, mergeFinalAnswer, readStyle } from './merge';
import { isNonAnswer } from '../../text/answers';
import { parseTurn, resolveTool } from './parse-step';
import { agentMessages, agentShots, extractMessages } from './prompt';
import parametricPaperPrompt from './prompts/parametric-paper.txt';
import parametricPrompt from './prompts/parametric.txt';
import { sourcesOfScope, toolsInScope, type Scope } from './scope';
import { declaredAnswers, type Turn } from './trace';

type Phase = 'think' | 'act' | 'extract' | 'final';

export interface AgentState {
  phase: Phase;
  /** Kept so that `partial` (which has no context) can tell answering reads from bridge reads. */
  question: string;
  /** Rendered solution processes shown to the model, fixed at start so a resumed run sees the same prompt. */
  examples: string[];
  exampleIds: string[];
  selection: SelectionMode;
  turns: Turn[];
  /** Agent calls made so far, unparseable replies included. */
  iterations: number;
  maxIterations: number;
  /** `paper` runs the published recipe (docs/FIDELITY.md); fixed at start so a resumed run keeps it. */
  recipe: Recipe;
  /** The sources this agent may use; a restricted agent sees only that source's tools. */
  scope: Scope;
  /** Whether the closed-book call runs beside the first agent call. */
  withParametric: boolean;
  /** The closed-book answer; `error` when that call failed (the run goes on without it). */
  parametric?: { answer?: string; error?: string };
  /** The answer the extract step produced after the iteration limit. */
  extracted?: string;
}

export interface AgentStrategyOptions {
  mode: string;
  description: string;
  /** Forces a selection mode (the zero-shot and random-fewshot baselines); otherwise `options.fewshot`. */
  selection?: SelectionMode;
  library?: LibraryLoader;
  /** `text` / `graph`: the single-source agents (unstructured-only, structured-only). Default hybrid. */
  scope?: Scope;
}

/** LangChain's AgentExecutor, which the authors ran, stops after 15 iterations; ours stops after 10. */
const DEFAULT_MAX_ITERATIONS: Record<Recipe, number> = { paper: 15, ours: 10 };
const MAX_ITERATIONS_CAP = 30;

const intOption = (v: unknown, fallback: number, min: number, max: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.floor(v))) : fallback;

const formatHelp = (reason: string, tools: string[]) =>
  `${reason} Reply in the format "Thought: ..." then "Action: <tool>" and "Action Input: <input>", ` +
  `or "Thought: ..." then "Final Answer: <answer>". Tools: ${tools.join(', ')}.`;

const thoughtEvent = (text: string): StepEvent[] => (text ? [{ type: 'thought', data: { text } }] : []);

/** The closed-book answer. Ours may say "I don't know"; the paper's prompt asks for the answer and nothing else. */
const parametricCall = (ctx: RunContext, recipe: Recipe) =>
  ctx.llm.chat({
    purpose: 'parametric',
    messages:
      recipe === 'paper'
        ? [{ role: 'user', content: `${parametricPaperPrompt.trim()}\nQuestion: ${oneLine(ctx.request.question)}\nAnswer:` }]
        : [
            { role: 'system', content: `${parametricPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
            { role: 'user', content: fence('QUESTION', ctx.request.question) },
          ],
    maxTokens: 128,
    temperature: 0,
  });

export interface AgentSetup {
  scope: Scope;
  withParametric: boolean;
  /** Forces a selection mode; otherwise `options.fewshot`. */
  selection?: SelectionMode;
  library?: LibraryLoader;
}

/** Chooses the examples and fixes the run's settings. A restricted agent sees its library cut to its own tools. */
export const startAgentLoop = async (ctx: RunContext, setup: AgentSetup): Promise<AgentState> => {
  const o = ctx.request.options ?? {};
  const recipe = recipeOf(o);
  const mode = setup.selection ?? readSelectionMode(o.fewshot);
  const full = (setup.library ?? defaultLibrary)(libraryNameFor(ctx));
  const tools = toolsInScope(setup.scope, ctx.tools.list()).map((t) => t.name);
  const library = setup.scope === 'hybrid' ? full : restrictLibrary(full, tools);
  const selection = await chooseExamples(ctx, {
    question: ctx.request.question,
    mode,
    k: intOption(o.k, 3, 0, 10),
    seed: intOption(o.seed, 1, 0, 2 ** 31),
    library,
    recipe,
  });
  return {
    phase: 'think',
    question: ctx.request.question,
    examples: selection.texts,
    exampleIds: selection.ids,
    selection: selection.mode,
    turns: [],
    iterations: 0,
    maxIterations: intOption(o.maxIterations, DEFAULT_MAX_ITERATIONS[recipe], 1, MAX_ITERATIONS_CAP),
    recipe,
    scope: setup.scope,
    withParametric: setup.withParametric,
  };
};

/** After a model turn or a tool result: think again, or extract once the iteration budget is spent. */
const nextPhase = (state: AgentState): Phase => (state.iterations >= state.maxIterations ? 'extract' : 'think');

/**
 * One step of the ReAct loop: think (one agent call, the first with the closed-book call beside it), act (one tool
 * call), or extract (after the iteration limit). Ends with phase `final`; what happens then is the caller's.
 */
export const stepAgentLoop = async (state: AgentState, ctx: RunContext): Promise<{ state: AgentState; events: StepEvent[] }> => {
  const question = ctx.request.question;
  const tools = toolsInScope(state.scope ?? 'hybrid', ctx.tools.list());
  const toolNames = tools.map((t) => t.name);

  if (state.phase === 'act') {
    const turns = [...state.turns];
    const last = { ...turns[turns.length - 1] };
    const tool = last.tool!;
    const input = last.input ?? '';
    // Ours: a repeated action gets its earlier result back instead of a second tool call. The paper's tools only ask
    // the model not to repeat an input, and run it again when it does.
    const before =
      state.recipe !== 'paper'
        ? turns.slice(0, -1).find((t) => t.tool === tool && t.input === input && t.observation !== undefined && !t.error)
        : undefined;
    const result = before
      ? { output: `(You already ran this exact action; its result was:)\n${before.observation}`, ms: 0, error: false, records: [] }
      : await ctx.runTool(tool, input);
    last.observation = result.output;
    last.error = result.error;
    if (result.records.length) last.records = result.records;
    turns[turns.length - 1] = last;
    const next = { ...state, turns };
    return {
      state: { ...next, phase: nextPhase(next) },
      events: [{ type: 'observation', data: { tool, output: result.output, ms: result.ms, error: result.error } }],
    };
  }

  if (state.phase === 'think') {
    // Step n+1's prompt extends step n's, so a provider's prefix cache serves all of it but the new turn. Shortening
    // old observations breaks that at the first one cut: with the model's window known, only the window does it
    // (src/engine/prompt-fit.ts); without, the trajectory keeps its fixed budget rather than be refused each step.
    const windowKnown = contextWindow(ctx.config, 'agent', ctx.config.LLM_MODELS?.agent ?? ctx.llm.model) !== undefined;
    const agentCall = ctx.llm.chat({
      purpose: 'agent',
      messages: agentMessages({
        tools,
        examples: state.examples,
        question,
        turns: state.turns,
        recipe: state.recipe,
        scope: state.scope,
        ...(windowKnown ? { budget: Infinity } : {}),
      }),
      droppable: [agentShots(state.examples, state.recipe)],
      stop: ['Observation:', '\nObservation'],
      maxTokens: 600,
      temperature: 0,
    });
    // The closed-book answer runs beside the first agent call, so it adds no latency.
    // State stored before these fields existed is a hybrid agent of our recipe.
    const wantParametric = state.withParametric !== false && !state.parametric;
    const [agentResult, parametricResult] = await Promise.allSettled([
      agentCall,
      wantParametric ? parametricCall(ctx, state.recipe) : Promise.resolve(undefined),
    ]);
    let parametric = state.parametric;
    if (wantParametric) {
      if (parametricResult.status === 'rejected') {
        const err = parametricResult.reason;
        if (err instanceof Error && err.name === 'LimitError') throw err;
        parametric = { error: err instanceof Error ? err.message : String(err) };
      } else {
        const text = parametricResult.value?.text.trim().replace(/^(final\s+)?answer:\s*/i, '') ?? '';
        parametric = { answer: text };
      }
    }
    if (agentResult.status === 'rejected') throw agentResult.reason;

    const parsed = parseTurn(agentResult.value.text);
    const iterations = state.iterations + 1;
    const base: AgentState = { ...state, ...(parametric ? { parametric } : {}), iterations };
    if (parsed.kind === 'final') {
      const turn: Turn = {
        thought: parsed.thought,
        final: parsed.answer,
        ...(parsed.declared ? { declared: parsed.declared } : {}),
        ...(parsed.response ? { response: parsed.response } : {}),
      };
      return { state: { ...base, turns: [...state.turns, turn], phase: 'final' }, events: thoughtEvent(parsed.thought) };
    }
    if (parsed.kind === 'invalid') {
      const observation = formatHelp(parsed.reason, toolNames);
      const turns = [...state.turns, { thought: parsed.thought, observation, error: true }];
      const next = { ...base, turns };
      return {
        state: { ...next, phase: nextPhase(next) },
        events: [...thoughtEvent(parsed.thought), { type: 'observation', data: { tool: 'format', output: observation, ms: 0, error: true } }],
      };
    }
    const tool = resolveTool(parsed.tool, toolNames);
    if (!tool) {
      const observation = `There is no tool called "${parsed.tool}". Valid tools: ${toolNames.join(', ')}.`;
      const turns = [...state.turns, { thought: parsed.thought, tool: parsed.tool, input: parsed.input, observation, error: true }];
      const next = { ...base, turns };
      return {
        state: { ...next, phase: nextPhase(next) },
        events: [
          ...thoughtEvent(parsed.thought),
          { type: 'action', data: { tool: parsed.tool, input: parsed.input } },
          { type: 'observation', data: { tool: parsed.tool, output: observation, ms: 0, error: true } },
        ],
      };
    }
    const turns = [...state.turns, { thought: parsed.thought, tool, input: parsed.input }];
    return {
      state: { ...base, turns, phase: 'act' },
      events: [...thoughtEvent(parsed.thought), { type: 'action', data: { tool, input: parsed.input } }],
    };
  }

  if (state.phase === 'extract') {
    // The paper's executor stops at its limit with no answer; ours asks once more from the trajectory.
    if (state.recipe === 'paper') {
      return { state: { ...state, phase: 'final' }, events: thoughtEvent(`Reached the limit of ${state.maxIterations} steps without a final answer.`) };
    }
    const reply = await ctx.llm.chat({ purpose: 'agent', messages: extractMessages(question, state.turns), maxTokens: 120, temperature: 0 });
    const extracted = reply.text.trim().replace(/^(final\s+)?answer:\s*/i, '').split('\n')[0].trim();
    const note = `Reached the limit of ${state.maxIterations} steps without a final answer; answering from the evidence gathered${
      isNonAnswer(extracted) ? ', which does not settle the question.' : `: ${extracted}`
    }`;
    return { state: { ...state, extracted, phase: 'final' }, events: thoughtEvent(note) };
  }
  return { state, events: [] };
};

/**
 * Each source's answer for this agent: its declarations first; ours falls back to reading the trace, the paper reads
 * only what the agent declared. A restricted agent reports only its own source.
 */
export const agentAnswers = (state: AgentState): Record<string, string> => {
  const answers = collectAnswers(
    state.turns,
    state.question,
    {
      ...(state.withParametric !== false ? { parametric: state.parametric?.answer } : {}),
      ...(state.extracted !== undefined ? { agent: state.extracted } : {}),
    },
    { inferFromTrace: state.recipe !== 'paper' },
  );
  const own = sourcesOfScope(state.scope ?? 'hybrid');
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
  const declared = declaredAnswers(state.turns);
  if (state.recipe === 'paper') return (declared?.[source] || answers.agent) ?? I_DONT_KNOW;
  return answers.agent ?? answers[source] ?? I_DONT_KNOW;
};

/**
 * The run's ending without the merge call, when the sources verified in the evidence agree (agreed.ts): the step's
 * own events (`before`), the note that the merge is skipped, and the answer with its entities; else undefined.
 */
const agreedEnding = async (state: AgentState, ctx: RunContext, before: StepEvent[] = []): Promise<StepOutcome<AgentState> | undefined> => {
  const answers = agentAnswers(state);
  const agreed = agreedAnswer(ctx, { turns: state.turns, answers, claims: traceClaims(answers, state.turns), style: readStyle(ctx.request.options), recipe: state.recipe });
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
export const createAgentStrategy = (opts: AgentStrategyOptions): Strategy<AgentState> => {
  const scope = opts.scope ?? 'hybrid';
  return {
    mode: opts.mode,
    description: opts.description,

    start: (ctx) => startAgentLoop(ctx, { scope, withParametric: scope === 'hybrid', selection: opts.selection, library: opts.library }),

    async step(state, ctx) {
      if (state.phase !== 'final') {
        const next = await stepAgentLoop(state, ctx);
        // The last agent turn and an answer that needs no model call end in one step: one wake-up (alarm and commit)
        // fewer between the final turn and the answer. Any step that would call the model stays a step of its own.
        const ended = next.state.phase === 'final' && (next.state.scope ?? 'hybrid') === 'hybrid' ? await agreedEnding(next.state, ctx, next.events) : undefined;
        return ended ?? next;
      }
      const answers = agentAnswers(state);
      if ((state.scope ?? 'hybrid') !== 'hybrid') {
        const answer = singleSourceAnswer(state, answers);
        const entities = await answerEntities(ctx, state.turns, answer);
        const data: AnswerDraft = { answer, answers, sources: answerSources(state.turns, answers), claims: traceClaims(answers, state.turns), entities };
        return { state, done: true, events: [{ type: 'answer', data }] };
      }
      const o = ctx.request.options ?? {};
      // A run stored before the answer joined the final turn's step reaches it here.
      const ended = await agreedEnding(state, ctx);
      if (ended) return ended;
      const answer = await mergeFinalAnswer(ctx, {
        question: ctx.request.question,
        turns: state.turns,
        answers,
        claims: traceClaims(answers, state.turns),
        style: readStyle(o),
        abstain: o.abstain === true,
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
