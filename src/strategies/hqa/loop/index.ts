import type { RunContext } from '../../../engine/types';
import type { AgentState, LoopStep, Phase } from '../agent-state';
import { act } from './act';
import { finish } from './finish';
import { think } from './think';

export { startAgentLoop, type AgentSetup } from './start';

const STEPS: Record<Exclude<Phase, 'final'>, (state: AgentState, ctx: RunContext) => Promise<LoopStep>> = { think, act, extract: finish };

/**
 * One step of the ReAct loop, as the paper's algorithm box runs it:
 *   think — the model writes a thought, then an action or the final answer (think.ts; the first call has the
 *           closed-book call beside it);
 *   act   — the action's tool runs, and its output is the observation the next thought reads (act.ts);
 * repeated until the final answer, or until the iteration limit, where finish ends the loop (finish.ts).
 * Ends with phase `final`; what happens then is the caller's. How the two recipes differ is data (recipes.ts).
 */
export const stepAgentLoop = async (state: AgentState, ctx: RunContext): Promise<LoopStep> =>
  state.phase === 'final' ? { state, events: [] } : STEPS[state.phase](state, ctx);
