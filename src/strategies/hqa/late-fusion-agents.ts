import type { AnswerDraft, StepEvent, Strategy } from '../../engine/types';
import { agentAnswers, agentResponse } from './agent';
import type { AgentState } from './agent-state';
import { claimsOf } from './claims';
import { answerEntities, entitiesFromTrace } from './answer-entities';
import type { LibraryLoader } from './examples';
import { agreedAnswer } from './agreed';
import { answerSources, bestAvailable, mergeFinalAnswer } from './merge';
import { agentOptions, type AgentOptions } from './options';
import { startAgentLoop, stepAgentLoop } from './loop';
import { AGENT_RECIPES } from './recipes';
import { toolsInScope } from './scope';

/**
 * LLM late fusion (the paper's baseline): two tool-restricted agents that never see each other — one with the
 * Wikipedia tools, one with the Wikidata tools — and one merge call that combines their answers with the model's
 * closed-book answer. Each agent is the HQA loop with its library cut to its own tools. The paper runs the agents one
 * after the other (stages `text`, `graph`); ours runs them side by side (stage `both`: each step advances both, their
 * calls at once), since neither waits for anything the other finds, so the answer comes after the longer agent
 * rather than after both.
 */
export interface LateFusionState {
  stage: 'text' | 'graph' | 'both' | 'merge';
  text: AgentState;
  graph?: AgentState;
}

const combined = (state: LateFusionState): Record<string, string> => {
  const text = agentAnswers(state.text);
  const graph = state.graph ? agentAnswers(state.graph) : {};
  // A restricted agent's own final answer stands for its source when it declared nothing and the trace says nothing.
  const ownFinal = (agent: AgentState | undefined) => agent && AGENT_RECIPES[agent.recipe].singleSourceAnswer === 'final';
  const wikipedia = text.wikipedia ?? (ownFinal(state.text) ? text.agent : undefined);
  const wikidata = graph.wikidata ?? (ownFinal(state.graph) ? graph.agent : undefined);
  const all = { wikipedia, wikidata, parametric: state.text.parametric?.answer };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v && v.trim())) as Record<string, string>;
};

const turnsOf = (state: LateFusionState) => [...state.text.turns, ...(state.graph?.turns ?? [])];

/** Each agent's answer rests on its own turns only: a graph agent that made no call cites nothing. */
const claimsFor = (state: LateFusionState, answers: Record<string, string>) =>
  claimsOf(answers, { text: state.text.turns, graph: state.graph?.turns ?? [] });

const starting = (scope: 'text' | 'graph', tools: string[]): StepEvent => ({
  type: 'thought',
  data: { text: `${scope === 'text' ? 'Wikipedia' : 'Wikidata'}-only agent starts (tools: ${tools.join(', ')}).` },
});

export const createLateFusionStrategy = (opts: { library?: LibraryLoader } = {}): Strategy<LateFusionState, AgentOptions> => ({
  mode: 'late-fusion',
  description: 'Baseline (LLM late fusion): a Wikipedia-only agent and a Wikidata-only agent, merged with the closed-book answer.',
  options: agentOptions(!opts.library, (recipe) => AGENT_RECIPES[recipe].lateFusion.selection),

  async start(ctx) {
    // The paper's late-fusion agents run in turn and draw their three examples at random (static prompts); ours run
    // side by side and keep options.fewshot (recipes.ts).
    const { inTurn, selection } = AGENT_RECIPES[ctx.options.recipe].lateFusion;
    const text = await startAgentLoop(ctx, { scope: 'text', withParametric: true, selection, library: opts.library });
    if (inTurn) return { stage: 'text', text };
    const graph = await startAgentLoop(ctx, { scope: 'graph', withParametric: false, selection, library: opts.library });
    return { stage: 'both', text, graph };
  },

  async step(state, ctx) {
    const announce = (scope: 'text' | 'graph') => starting(scope, toolsInScope(scope, ctx.tools.list()).map((t) => t.name));
    if (state.stage === 'both' && state.graph) {
      const first = state.text.iterations === 0 && state.text.phase === 'think' ? [announce('text'), announce('graph')] : [];
      const advance = (agent: AgentState) => (agent.phase === 'final' ? Promise.resolve({ state: agent, events: [] as StepEvent[] }) : stepAgentLoop(agent, ctx));
      // Model turns run at once. Two tool calls do not: a tool call's evidence records are the ones that arrive while
      // it runs, so two at once would each cite the other's.
      const bothAct = state.text.phase === 'act' && state.graph.phase === 'act';
      const [text, graph] = bothAct
        ? [await advance(state.text), await advance(state.graph)]
        : await Promise.all([advance(state.text), advance(state.graph)]);
      const done = text.state.phase === 'final' && graph.state.phase === 'final';
      return { state: { ...state, text: text.state, graph: graph.state, stage: done ? 'merge' : 'both' }, events: [...first, ...text.events, ...graph.events] };
    }
    if (state.stage === 'text') {
      const first = state.text.iterations === 0 && state.text.phase === 'think' ? [announce('text')] : [];
      const out = await stepAgentLoop(state.text, ctx);
      const done = out.state.phase === 'final';
      return { state: { ...state, text: out.state, stage: done ? 'graph' : 'text' }, events: [...first, ...out.events] };
    }
    if (state.stage === 'graph') {
      if (!state.graph) {
        const { selection } = AGENT_RECIPES[state.text.recipe].lateFusion;
        const graph = await startAgentLoop(ctx, { scope: 'graph', withParametric: false, selection, library: opts.library });
        return { state: { ...state, graph }, events: [announce('graph')] };
      }
      const out = await stepAgentLoop(state.graph, ctx);
      return { state: { ...state, graph: out.state, stage: out.state.phase === 'final' ? 'merge' : 'graph' }, events: out.events };
    }
    const answers = combined(state);
    const claims = claimsFor(state, answers);
    const agreed = agreedAnswer(ctx, { turns: turnsOf(state), answers, claims, style: ctx.options.answerStyle, recipe: state.text.recipe });
    if (agreed) {
      const entities = await answerEntities(ctx, turnsOf(state), agreed.draft.answer);
      return { state, done: true, events: [...agreed.events, { type: 'answer', data: { ...agreed.draft, entities } }] };
    }
    const responses = [agentResponse(state.text), state.graph && agentResponse(state.graph)].filter(Boolean).join('\n\n');
    const answer = await mergeFinalAnswer(ctx, {
      question: ctx.request.question,
      turns: turnsOf(state),
      answers,
      claims,
      style: ctx.options.answerStyle,
      abstain: ctx.options.abstain,
      recipe: state.text.recipe,
      context: responses || undefined,
    });
    const entities = await answerEntities(ctx, turnsOf(state), answer.answer);
    return { state, done: true, events: [{ type: 'answer', data: { ...answer, entities } }] };
  },

  partial(state): AnswerDraft | null {
    if (!state) return null;
    const answers = combined(state);
    const answer = bestAvailable(answers);
    const { entities } = entitiesFromTrace(turnsOf(state), answer);
    return { answer, answers, sources: answerSources(turnsOf(state), answers), claims: claimsFor(state, answers), entities };
  },
});

export const lateFusionStrategy = createLateFusionStrategy();
