import { protocolFor } from '../../../engine/tool-protocol';
import type { RunContext } from '../../../engine/types';
import { restrictLibrary, type SelectionMode } from '../../../fewshot';
import type { AgentState } from '../agent-state';
import { chooseExamples, defaultLibrary, libraryNameFor, type LibraryLoader } from '../examples';
import type { AgentOptions } from '../options';
import { toolsInScope, type Scope } from '../scope';

export interface AgentSetup {
  scope: Scope;
  withParametric: boolean;
  /** Forces a selection mode; otherwise `options.fewshot`. */
  selection?: SelectionMode;
  library?: LibraryLoader;
}

/** Chooses the examples and fixes the run's settings. A restricted agent sees its library cut to its own tools. */
export const startAgentLoop = async (ctx: RunContext<AgentOptions>, setup: AgentSetup): Promise<AgentState> => {
  const o = ctx.options;
  const recipe = o.recipe;
  const mode = setup.selection ?? o.fewshot;
  const full = (setup.library ?? defaultLibrary)(libraryNameFor(ctx));
  const tools = toolsInScope(setup.scope, ctx.tools.list()).map((t) => t.name);
  const library = setup.scope === 'hybrid' ? full : restrictLibrary(full, tools);
  const selection = await chooseExamples(ctx, {
    question: ctx.request.question,
    mode,
    k: o.k,
    seed: o.seed,
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
    maxIterations: o.maxIterations,
    recipe,
    scope: setup.scope,
    withParametric: setup.withParametric,
  };
};
