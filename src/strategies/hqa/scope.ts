import type { Tool } from '../../tools/types';

/**
 * Which sources an agent may use: both (HQA), Wikipedia text only, or Wikidata only. The paper's Figure 5 compares
 * the hybrid agent with the text-only and graph-only agents, and its LLM late fusion runs those two side by side.
 */
export type Scope = 'hybrid' | 'text' | 'graph';

const TEXT_TOOLS = ['wikisearch', 'read'];
const GRAPH_TOOLS = ['getWikidataID', 'generateQuery', 'runQuery', 'getLabel'];

/** The tools of a scope among those registered (hybrid: all of them, test tools included). */
export const toolsInScope = (scope: Scope, tools: readonly Tool[]): Tool[] =>
  scope === 'hybrid' ? [...tools] : tools.filter((t) => (scope === 'text' ? TEXT_TOOLS : GRAPH_TOOLS).includes(t.name));

/** The sources a scope answers for: what its agent declares and what the run reports. */
export const sourcesOfScope = (scope: Scope): ('wikipedia' | 'wikidata')[] =>
  scope === 'text' ? ['wikipedia'] : scope === 'graph' ? ['wikidata'] : ['wikipedia', 'wikidata'];

/** Lines of our agent prompt that depend on the scope (the paper recipe has one prompt file per scope instead). */
export const SCOPE_TEXT: Record<Scope, { scope: string; guidance: string[] }> = {
  hybrid: {
    scope: 'You answer factual questions by looking things up in Wikipedia (text) and Wikidata (a knowledge graph).',
    guidance: [
      'Prefer Wikidata for counts, dates, rankings and lists; prefer Wikipedia text for facts the graph may lack. Using both and checking one against the other is best.',
      'Find exact page titles with wikisearch before read or getWikidataID. Get Wikidata ids with getWikidataID before generateQuery.',
      'If a query returns nothing, look at the ids and properties again and try a different query rather than repeating the same one.',
    ],
  },
  text: {
    scope: 'You answer factual questions by looking things up in Wikipedia (text). You have no access to Wikidata.',
    guidance: ['Find exact page titles with wikisearch before read.', 'If a page does not say, try another relevant page rather than repeating the same read.'],
  },
  graph: {
    scope: 'You answer factual questions by querying Wikidata (a knowledge graph). You have no access to Wikipedia text.',
    guidance: [
      'Get Wikidata ids with getWikidataID (give it the name of the entity, as its Wikipedia page would be titled) before generateQuery.',
      'If a query returns nothing, look at the ids and properties again and try a different query rather than repeating the same one.',
    ],
  },
};

export const DECLARATION_LINES: Record<'wikipedia' | 'wikidata', string> = {
  wikipedia: 'Wikipedia Answer: what the Wikipedia pages you read say, or None',
  wikidata: 'Wikidata Answer: what your Wikidata queries returned, or None',
};
