import type { Recipe } from '../../engine/recipe';
import type { RunContext } from '../../engine/types';
import type { AgentOptions } from './options';
import { AGENT_RECIPES } from './recipes';
import {
  bundledLibraryNames,
  loadLibrary,
  renderProcess,
  selectExamples,
  type SelectionMode,
  type SolutionProcess,
} from '../../fewshot';

/** Where solution processes come from, by library name; tests pass their own small libraries. */
export type LibraryLoader = (name: string) => readonly SolutionProcess[];

const AGENT_LIBRARIES = ['mintaka', 'qald9plus', 'compmix'];

/** A bundled library by name (a benchmark's own or an imported one); an unknown name is a clear error. */
export const defaultLibrary: LibraryLoader = (name) => {
  if (!bundledLibraryNames().includes(name)) {
    throw new Error(`There is no few-shot library "${name.slice(0, 64)}" in this build; bundled: ${bundledLibraryNames().join(', ')}.`);
  }
  return loadLibrary(name);
};

/**
 * The library a run selects from: `options.library` (its name checked by the options schema, ./options.ts), else the
 * `FEWSHOT_LIBRARY` var, else the variant's own (variants without one, hybridqa, mmqa and crag, borrow mintaka's).
 * GET /v1/config names it through the same function.
 */
export const agentLibraryName = (library: string | undefined, configured: string | undefined, variant: string): string =>
  library ?? (configured || (AGENT_LIBRARIES.includes(variant) ? variant : 'mintaka'));

export const libraryNameFor = (ctx: RunContext<AgentOptions>): string => agentLibraryName(ctx.options.library, ctx.config.FEWSHOT_LIBRARY, ctx.request.variant);

export interface Selection {
  /** The mode that actually picked (a fallback is recorded, not hidden). */
  mode: SelectionMode;
  ids: string[];
  texts: string[];
}

const noEmbedder = { name: 'unused', dims: 0, embed: async () => [] };

/**
 * Picks k solution processes for the question. If the vector index fails, relevance is computed in memory;
 * if the embedder fails too, a seeded random draw keeps the run going (the returned mode says so).
 */
export const chooseExamples = async (
  ctx: RunContext,
  input: { question: string; mode: SelectionMode; k: number; seed: number; library: readonly SolutionProcess[]; recipe?: Recipe },
): Promise<Selection> => {
  const done = (mode: SelectionMode, picked: readonly SolutionProcess[]): Selection => ({
    mode,
    ids: picked.map((p) => p.id),
    texts: picked.map(renderProcess),
  });
  const how = AGENT_RECIPES[input.recipe ?? 'ours'].selection;
  const base = { question: input.question, library: input.library, k: input.k, mode: input.mode, seed: input.seed, ...how };
  if (input.mode === 'zero-shot' || input.k === 0 || input.library.length === 0) return done(input.mode, []);
  // No embedding is needed, so no service is created.
  if (input.mode === 'random') return done(input.mode, await selectExamples({ ...base, embedder: noEmbedder }));
  try {
    return done(input.mode, await selectExamples({ ...base, embedder: ctx.embedder(), vectors: ctx.vectors() }));
  } catch {
    try {
      return done(input.mode, await selectExamples({ ...base, embedder: ctx.embedder() }));
    } catch {
      return done('random', await selectExamples({ ...base, mode: 'random', embedder: noEmbedder }));
    }
  }
};
