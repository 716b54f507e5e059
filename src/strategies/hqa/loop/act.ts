import type { RunContext } from '../../../engine/types';
import { nextPhase, type AgentState, type LoopStep } from '../agent-state';
import { AGENT_RECIPES } from '../recipes';
import type { Turn } from '../trace';

/** The result of an earlier turn with this exact action, if one ran without error. */
const sameActionBefore = (turns: readonly Turn[], tool: string, input: string) =>
  turns.find((t) => t.tool === tool && t.input === input && t.observation !== undefined && !t.error);

/** Act: run the pending action's tool; its output is the turn's observation. */
export const act = async (state: AgentState, ctx: RunContext): Promise<LoopStep> => {
  const turns = [...state.turns];
  const last = { ...turns[turns.length - 1] };
  const tool = last.tool!;
  const input = last.input ?? '';
  const before = AGENT_RECIPES[state.recipe].reuseRepeatedActions ? sameActionBefore(turns.slice(0, -1), tool, input) : undefined;
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
};
