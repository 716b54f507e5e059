import { createAgentStrategy } from './agent';

/*
 * The two baselines that are the agent with another example selection live here, beside the agent, rather than in
 * baselines/: they are the same loop with one setting forced, and strategies must not import each other.
 */

/** The agent with no solution processes in its prompt (the paper's zero-shot ablation). */
export const zeroShotStrategy = createAgentStrategy({
  mode: 'zero-shot',
  description: 'HQA agent with no few-shot examples.',
  selection: 'zero-shot',
});

/** The agent with k solution processes drawn at random (seeded by options.seed) instead of by DPP. */
export const randomFewshotStrategy = createAgentStrategy({
  mode: 'random-fewshot',
  description: 'HQA agent with seeded random few-shot examples instead of DPP selection.',
  selection: 'random',
});

/** The agent with Wikidata tools only (getWikidataID, generateQuery, runQuery, getLabel): the paper's structured-only. */
export const structuredOnlyStrategy = createAgentStrategy({
  mode: 'structured-only',
  description: 'HQA agent restricted to the Wikidata (graph) tools; answers from its own trajectory, no merge.',
  scope: 'graph',
});

/** The agent with Wikipedia tools only (wikisearch, read): the paper's unstructured-only. */
export const unstructuredOnlyStrategy = createAgentStrategy({
  mode: 'unstructured-only',
  description: 'HQA agent restricted to the Wikipedia (text) tools; answers from its own trajectory, no merge.',
  scope: 'text',
});
