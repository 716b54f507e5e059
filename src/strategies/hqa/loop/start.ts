import { recipeOf } from '../../../engine/recipe';
import { protocolFor } from '../../../engine/tool-protocol';
import type { RunContext } from '../../../engine/types';
import { restrictLibrary, type SelectionMode } from '../../../fewshot';
import type { AgentState } from '../agent-state';
import { chooseExamples, defaultLibrary, libraryNameFor, readSelectionMode, type LibraryLoader } from '../examples';
import { AGENT_RECIPES } from '../recipes';
import { toolsInScope, type Scope } from '../scope';

const MAX_ITERATIONS_CAP = 30;

const intOption = (v: unknown, fallback: number, min: number, max: number) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.floor(v))) : fallback;

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
  // Fixed at start, as the recipe is, so a resumed run keeps speaking the way it began.
  const native = protocolFor(ctx, 'agent').tools === 'native';
  return {
    ...(native ? { protocol: { tools: 'native' as const, failures: 0 } } : {}),
    phase: 'think',
    question: ctx.request.question,
    examples: selection.texts,
    exampleIds: selection.ids,
    selection: selection.mode,
    turns: [],
    iterations: 0,
    maxIterations: intOption(o.maxIterations, AGENT_RECIPES[recipe].maxIterations, 1, MAX_ITERATIONS_CAP),
    recipe,
    scope: setup.scope,
    withParametric: setup.withParametric,
  };
};
