import type { RunContext, StepEvent, ToolRun } from '../../../engine/types';
import { nextPhase, type AgentState, type LoopStep } from '../agent-state';
import { AGENT_RECIPES } from '../recipes';
import type { Turn } from '../trace';

/** The result of an earlier turn with this exact action, if one ran without error. */
const sameActionBefore = (turns: readonly Turn[], tool: string, input: string) =>
  turns.find((t) => t.tool === tool && t.input === input && t.observation !== undefined && !t.error);

/** Where the latest model turn's calls start: the turn itself, then the calls `joined` to it. */
const batchStart = (turns: readonly Turn[]) => {
  let at = turns.length - 1;
  while (at > 0 && turns[at].joined) at--;
  return at;
};

/** The input a tool is given: a native call's arguments as the object they are (checked when the turn was read), else the text. */
const inputOf = (t: Turn): unknown => (t.call ? JSON.parse(t.call.arguments || '{}') : (t.input ?? ''));

/**
 * Act: run the latest turn's pending calls — one, or several a native turn asked for at once, all together under the
 * run's gates and budgets — and give each its observation, in the order asked. Each call has a key in the run, so a
 * finished one is kept as it ends (RunContext.runTool): this step, repeated after a crash, runs only the unfinished.
 */
export const act = async (state: AgentState, ctx: RunContext): Promise<LoopStep> => {
  const turns = [...state.turns];
  const start = batchStart(turns);
  const earlier = turns.slice(0, start);
  const reuse = AGENT_RECIPES[state.recipe].reuseRepeatedActions;
  const pending = turns.map((t, i) => i).filter((i) => i >= start && turns[i].observation === undefined);
  const started = new Map<string, Promise<ToolRun>>();
  const run = (i: number): Promise<ToolRun> => {
    const t = turns[i];
    const before = reuse ? sameActionBefore(earlier, t.tool!, t.input ?? '') : undefined;
    if (before) return Promise.resolve({ output: `(You already ran this exact action; its result was:)\n${before.observation}`, ms: 0, error: false, records: [] });
    // The same call twice in one turn runs once.
    const same = `${t.tool}\n${t.input ?? ''}`;
    const call = started.get(same) ?? ctx.runTool(t.tool!, inputOf(t), `agent:${state.scope}:${i}`);
    started.set(same, call);
    return call;
  };
  const results = await Promise.all(pending.map(run));
  pending.forEach((i, k) => {
    const { output, error, records } = results[k];
    turns[i] = { ...turns[i], observation: output, error, ...(records.length ? { records } : {}) };
  });
  const ms = new Map(pending.map((i, k) => [i, results[k].ms]));
  const events: StepEvent[] = turns.slice(start).map((t, k) => ({
    type: 'observation',
    data: { tool: t.tool!, output: t.observation ?? '', ms: ms.get(start + k) ?? 0, error: !!t.error, ...(t.call ? { callId: t.call.id } : {}) },
  }));
  const next = { ...state, turns };
  return { state: { ...next, phase: nextPhase(next) }, events };
};
