import type { RunContext } from '../../../engine/types';
import { isNonAnswer } from '../../../text/answers';
import { thoughtEvent, type AgentState, type LoopStep } from '../agent-state';
import { extractMessages } from '../prompt';
import { AGENT_RECIPES } from '../recipes';

/** Finish at the iteration limit: ours answers once more from the trajectory; the paper's loop stops with no answer. */
export const finish = async (state: AgentState, ctx: RunContext): Promise<LoopStep> => {
  if (!AGENT_RECIPES[state.recipe].extractAtLimit) {
    return { state: { ...state, phase: 'final' }, events: thoughtEvent(`Reached the limit of ${state.maxIterations} steps without a final answer.`) };
  }
  const reply = await ctx.llm.chat({ purpose: 'agent', messages: extractMessages(ctx.request.question, state.turns), maxTokens: 120 });
  const extracted = reply.text.trim().replace(/^(final\s+)?answer:\s*/i, '').split('\n')[0].trim();
  const note = `Reached the limit of ${state.maxIterations} steps without a final answer; answering from the evidence gathered${
    isNonAnswer(extracted) ? ', which does not settle the question.' : `: ${extracted}`
  }`;
  return { state: { ...state, extracted, phase: 'final' }, events: thoughtEvent(note) };
};
