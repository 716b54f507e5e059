import { contextWindow } from '../../../engine/context-window';
import { LimitError, type RunContext, type StepEvent } from '../../../engine/types';
import { LLMError, type ChatResult } from '../../../llm/types';
import { toolDefinitions } from '../../../tools/definitions';
import type { Tool } from '../../../tools/types';
import { nextPhase, thoughtEvent, type AgentState, type LoopStep } from '../agent-state';
import { parseTurn, resolveTool, type ParsedTurn } from '../parse-step';
import { agentMessages, agentShots } from '../prompt';
import { nativeAgentMessages, nativeShots } from '../prompt-native';
import { AGENT_RECIPES } from '../recipes';
import { toolsInScope } from '../scope';
import type { Turn } from '../trace';
import { afterNativeTurn, refusedFunctions } from './native-turn';

const formatHelp = (reason: string, tools: string[]) =>
  `${reason} Reply in the format "Thought: ..." then "Action: <tool>" and "Action Input: <input>", ` +
  `or "Thought: ..." then "Final Answer: <answer>". Tools: ${tools.join(', ')}.`;

const native = (state: AgentState) => state.protocol?.tools === 'native';

const agentCall = (state: AgentState, ctx: RunContext, tools: Tool[]) => {
  // Step n+1's prompt extends step n's, so a provider's prefix cache serves all of it but the new turn. Shortening
  // old observations breaks that at the first one cut: with the model's window known, only the window does it
  // (src/engine/prompt-fit.ts); without, the trajectory keeps its fixed budget rather than be refused each step.
  const windowKnown = contextWindow(ctx.config, 'agent', ctx.config.LLM_MODELS?.agent ?? ctx.llm.model) !== undefined;
  const { examples, turns, recipe, scope } = state;
  if (native(state)) {
    return ctx.llm.chat({
      purpose: 'agent',
      messages: nativeAgentMessages({ examples, question: ctx.request.question, turns, scope, ...(windowKnown ? { budget: Infinity } : {}) }),
      droppable: [nativeShots(examples)],
      tools: toolDefinitions(tools),
      toolChoice: 'auto',
      maxTokens: 600,
    });
  }
  return ctx.llm.chat({
    purpose: 'agent',
    messages: agentMessages({ tools, examples, question: ctx.request.question, turns, recipe, scope, ...(windowKnown ? { budget: Infinity } : {}) }),
    droppable: [agentShots(examples, recipe)],
    stop: ['Observation:', '\nObservation'],
    maxTokens: 600,
  });
};

const closedBookCall = (ctx: RunContext, state: AgentState) =>
  ctx.llm.chat({ purpose: 'parametric', messages: AGENT_RECIPES[state.recipe].closedBook(ctx.request.question), maxTokens: 128 });

/** The closed-book answer as state; a failed call is kept as its error and the run goes on, unless a run limit ended it. */
const closedBookOutcome = (settled: PromiseSettledResult<ChatResult | undefined>): AgentState['parametric'] => {
  if (settled.status === 'fulfilled') return { answer: settled.value?.text.trim().replace(/^(final\s+)?answer:\s*/i, '') ?? '' };
  const err: unknown = settled.reason;
  if (err instanceof LimitError) throw err;
  return { error: err instanceof Error ? err.message : String(err) };
};

/** A turn that ends in an observation the loop writes itself: a reply it cannot read, or a tool it does not have. */
const refused = (state: AgentState, turn: Turn, events: StepEvent[]): LoopStep => {
  const next = { ...state, turns: [...state.turns, turn] };
  return { state: { ...next, phase: nextPhase(next) }, events };
};

/** What the model's turn leads to: the final answer, help with the format, an unknown tool refused, or an action to run. */
const afterTurn = (state: AgentState, parsed: ParsedTurn, toolNames: string[]): LoopStep => {
  const thought = thoughtEvent(parsed.thought);
  if (parsed.kind === 'final') {
    const { answer, declared, response } = parsed;
    const turn: Turn = { thought: parsed.thought, final: answer, ...(declared ? { declared } : {}), ...(response ? { response } : {}) };
    return { state: { ...state, turns: [...state.turns, turn], phase: 'final' }, events: thought };
  }
  if (parsed.kind === 'invalid') {
    const observation = formatHelp(parsed.reason, toolNames);
    return refused(state, { thought: parsed.thought, observation, error: true }, [
      ...thought,
      { type: 'observation', data: { tool: 'format', output: observation, ms: 0, error: true } },
    ]);
  }
  const tool = resolveTool(parsed.tool, toolNames);
  if (!tool) {
    const observation = `There is no tool called "${parsed.tool}". Valid tools: ${toolNames.join(', ')}.`;
    return refused(state, { thought: parsed.thought, tool: parsed.tool, input: parsed.input, observation, error: true }, [
      ...thought,
      { type: 'action', data: { tool: parsed.tool, input: parsed.input } },
      { type: 'observation', data: { tool: parsed.tool, output: observation, ms: 0, error: true } },
    ]);
  }
  return {
    state: { ...state, turns: [...state.turns, { thought: parsed.thought, tool, input: parsed.input }], phase: 'act' },
    events: [...thought, { type: 'action', data: { tool, input: parsed.input } }],
  };
};

/** Think: one agent call writes a thought and an action or a final answer; the first runs the closed-book call beside it. */
export const think = async (state: AgentState, ctx: RunContext): Promise<LoopStep> => {
  const tools = toolsInScope(state.scope, ctx.tools.list());
  const wantClosedBook = state.withParametric && !state.parametric;
  // Side by side, so the closed-book answer adds no latency.
  const [agent, closedBook] = await Promise.allSettled([agentCall(state, ctx, tools), wantClosedBook ? closedBookCall(ctx, state) : Promise.resolve(undefined)]);
  const parametric = wantClosedBook ? closedBookOutcome(closedBook) : state.parametric;
  const kept: AgentState = { ...state, ...(parametric ? { parametric } : {}) };
  if (agent.status === 'rejected') {
    // A server that cannot take functions says 400 to them: not worth a turn, and not a reason to end the run.
    if (native(state) && agent.reason instanceof LLMError && agent.reason.status === 400) return refusedFunctions(kept, agent.reason.message, ctx);
    throw agent.reason;
  }
  const counted: AgentState = { ...kept, iterations: state.iterations + 1 };
  if (native(state)) return afterNativeTurn(counted, agent.value, tools, ctx);
  return afterTurn(counted, parseTurn(agent.value.text), tools.map((t) => t.name));
};
