import type { SolutionProcess } from './library';

/**
 * A solution process cut down to the steps a tool-restricted agent can take (the text-only or graph-only agents of
 * LLM late fusion and the single-source modes), as the paper's late-fusion libraries are the hybrid processes with
 * the other source's steps removed. Returns null when no step is left: a process that never used these tools
 * teaches such an agent nothing.
 */
export const restrictProcess = (p: SolutionProcess, allowed: readonly string[]): SolutionProcess | null => {
  const steps = p.steps.filter((s) => allowed.includes(s.action));
  if (!steps.length) return null;
  if (steps.length === p.steps.length) return p;
  return { ...p, steps, toolSequence: steps.map((s) => s.action) };
};

const restricted = new WeakMap<readonly SolutionProcess[], Map<string, SolutionProcess[]>>();

/** Every process of a library restricted to `allowed`, cached per library so selection caches stay warm. */
export const restrictLibrary = (library: readonly SolutionProcess[], allowed: readonly string[]): readonly SolutionProcess[] => {
  const key = [...allowed].sort().join(',');
  const perLibrary = restricted.get(library) ?? new Map<string, SolutionProcess[]>();
  restricted.set(library, perLibrary);
  let hit = perLibrary.get(key);
  if (!hit) {
    hit = library.map((p) => restrictProcess(p, allowed)).filter((p): p is SolutionProcess => p !== null);
    perLibrary.set(key, hit);
  }
  return hit;
};
