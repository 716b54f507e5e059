import { DATA_FENCE_RULE, fence } from '../../engine/prompt-data';
import type { AnswerData, EventInput, RunContext, Strategy } from '../../engine/types';
import type { SelectionMode } from '../../fewshot';
import { agreementOf } from './agreement';
import { answerEntities, entitiesFromTrace } from './answer-entities';
import { chooseExamples, defaultLibrary, readSelectionMode, type LibraryLoader } from './examples';
import { answerSources, bestAvailable, collectAnswers, mergeFinalAnswer, readStyle } from './merge';
import { isNonAnswer } from './normalise';
import { parseTurn, resolveTool } from './parse-step';
import { agentMessages, extractMessages } from './prompt';
import parametricPrompt from './prompts/parametric.txt';
import type { Turn } from './trace';

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
}

const DEFAULT_MAX_ITERATIONS = 10;
const MAX_ITERATIONS_CAP = 30;

const intOption = (v: unknown, fallback: number, min: number, max: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.floor(v))) : fallback;

const formatHelp = (reason: string, tools: string[]) =>
  `${reason} Reply in the format "Thought: ..." then "Action: <tool>" and "Action Input: <input>", ` +
  `or "Thought: ..." then "Final Answer: <answer>". Tools: ${tools.join(', ')}.`;

const thoughtEvent = (text: string): EventInput[] => (text ? [{ type: 'thought', data: { text } }] : []);

const parametricCall = (ctx: RunContext) =>
  ctx.llm.chat({
    purpose: 'parametric',
    messages: [
      { role: 'system', content: `${parametricPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: fence('QUESTION', ctx.request.question) },
    ],
    maxTokens: 128,
    temperature: 0,
  });

const answersOf = (state: AgentState) =>
  collectAnswers(state.turns, state.question, {
    parametric: state.parametric?.answer,
    ...(state.extracted !== undefined ? { agent: state.extracted } : {}),
  });

/** After a model turn or a tool result: think again, or extract once the iteration budget is spent. */
const nextPhase = (state: AgentState): Phase => (state.iterations >= state.maxIterations ? 'extract' : 'think');

/**
 * The HQA ReAct loop as a step machine. One step is one of:
 *  think   — one agent model call (the first one runs the parametric call beside it), parsed into a turn;
 *  act     — one tool call for the pending action;
 *  extract — after the iteration limit, one call that answers from the trajectory;
 *  final   — the merge call (purpose `final`) that writes the answer from every source's answer.
 */
export const createAgentStrategy = (opts: AgentStrategyOptions): Strategy<AgentState> => ({
  mode: opts.mode,
  description: opts.description,

  async start(ctx) {
    const o = ctx.request.options ?? {};
    const mode = opts.selection ?? readSelectionMode(o.fewshot);
    const library = (opts.library ?? defaultLibrary)(ctx.request.variant);
    const selection = await chooseExamples(ctx, {
      question: ctx.request.question,
      mode,
      k: intOption(o.k, 3, 0, 10),
      seed: intOption(o.seed, 1, 0, 2 ** 31),
      library,
    });
    return {
      phase: 'think',
      question: ctx.request.question,
      examples: selection.texts,
      exampleIds: selection.ids,
      selection: selection.mode,
      turns: [],
      iterations: 0,
      maxIterations: intOption(o.maxIterations, DEFAULT_MAX_ITERATIONS, 1, MAX_ITERATIONS_CAP),
    };
  },

  async step(state, ctx) {
    const question = ctx.request.question;
    const toolNames = ctx.tools.names();

    if (state.phase === 'act') {
      const turns = [...state.turns];
      const last = { ...turns[turns.length - 1] };
      const tool = last.tool!;
      const input = last.input ?? '';
      // A repeated action gets its earlier result back instead of a second tool call.
      const before = turns.slice(0, -1).find((t) => t.tool === tool && t.input === input && t.observation !== undefined && !t.error);
      const result = before
        ? { output: `(You already ran this exact action; its result was:)\n${before.observation}`, ms: 0, error: false }
        : await ctx.runTool(tool, input);
      last.observation = result.output;
      last.error = result.error;
      turns[turns.length - 1] = last;
      const next = { ...state, turns };
      return {
        state: { ...next, phase: nextPhase(next) },
        events: [{ type: 'observation', data: { tool, output: result.output, ms: result.ms, error: result.error } }],
      };
    }

    if (state.phase === 'think') {
      const agentCall = ctx.llm.chat({
        purpose: 'agent',
        messages: agentMessages({ tools: ctx.tools.list(), examples: state.examples, question, turns: state.turns }),
        stop: ['Observation:', '\nObservation'],
        maxTokens: 600,
        temperature: 0,
      });
      // The closed-book answer runs beside the first agent call, so it adds no latency.
      const [agentResult, parametricResult] = await Promise.allSettled([
        agentCall,
        state.parametric ? Promise.resolve(undefined) : parametricCall(ctx),
      ]);
      let parametric = state.parametric;
      if (!parametric) {
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
      const base = { ...state, parametric, iterations };
      if (parsed.kind === 'final') {
        const turns = [...state.turns, { thought: parsed.thought, final: parsed.answer }];
        return { state: { ...base, turns, phase: 'final' }, events: thoughtEvent(parsed.thought) };
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
      const reply = await ctx.llm.chat({ purpose: 'agent', messages: extractMessages(question, state.turns), maxTokens: 120, temperature: 0 });
      const extracted = reply.text.trim().replace(/^(final\s+)?answer:\s*/i, '').split('\n')[0].trim();
      const note = `Reached the limit of ${state.maxIterations} steps without a final answer; answering from the evidence gathered${
        isNonAnswer(extracted) ? ', which does not settle the question.' : `: ${extracted}`
      }`;
      return { state: { ...state, extracted, phase: 'final' }, events: thoughtEvent(note) };
    }

    const o = ctx.request.options ?? {};
    const answer = await mergeFinalAnswer(ctx, {
      question,
      turns: state.turns,
      answers: answersOf(state),
      style: readStyle(o),
      abstain: o.abstain === true,
    });
    const entities = await answerEntities(ctx, state.turns, answer.answer);
    return { state, done: true, events: [{ type: 'answer', data: { ...answer, entities } }] };
  },

  partial(state): AnswerData {
    const answers = answersOf(state);
    const answer = bestAvailable(answers);
    const { entities } = entitiesFromTrace(state.turns, answer);
    return { answer, answers, sources: answerSources(state.turns, answers, 'model'), confidence: agreementOf(answers), entities };
  },
});

export const agentStrategy = createAgentStrategy({
  mode: 'agent',
  description: 'HQA ReAct agent over Wikipedia and Wikidata with DPP-selected human solution processes and a final merge.',
});
