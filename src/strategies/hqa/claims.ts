import type { Claim } from '../../engine/types';
import type { Turn } from './trace';

/**
 * What each source's answer rests on: the evidence records of the turns that used its tools. The engine verifies
 * these (src/engine/attribution); nothing here decides how far an answer is trusted.
 */
const TEXT_TOOLS = new Set(['wikisearch', 'read']);
const GRAPH_TOOLS = new Set(['getWikidataID', 'generateQuery', 'runQuery', 'getLabel']);

/** The latest turns first: the read or query that gave the answer is usually the last of its kind. */
const keysOf = (turns: readonly Turn[], tools?: ReadonlySet<string>): string[] =>
  [...turns].reverse().flatMap((t) => (!t.error && t.tool && (!tools || tools.has(t.tool)) ? (t.records ?? []) : []));

/**
 * Claims for an answer set: Wikipedia's from the text tools' records, Wikidata's from the graph tools' records, and
 * the agent's own answer from every record it saw, voting only when neither source's answer verified. Late fusion
 * passes each agent's own turns, so an agent that made no call cites nothing.
 */
export const claimsOf = (answers: Record<string, string>, turns: { text: readonly Turn[]; graph: readonly Turn[] }): Claim[] => {
  const claims: Claim[] = [];
  if (answers.wikipedia) claims.push({ source: 'wikipedia', answer: answers.wikipedia, keys: keysOf(turns.text, TEXT_TOOLS) });
  if (answers.wikidata) claims.push({ source: 'wikidata', answer: answers.wikidata, keys: keysOf(turns.graph, GRAPH_TOOLS) });
  if (answers.agent) {
    const all = turns.text === turns.graph ? keysOf(turns.text) : [...keysOf(turns.text), ...keysOf(turns.graph)];
    claims.push({ source: 'agent', answer: answers.agent, keys: all, fallback: true });
  }
  return claims;
};

/** One trace for both sources (a hybrid agent, a pipeline). */
export const traceClaims = (answers: Record<string, string>, turns: readonly Turn[]): Claim[] => claimsOf(answers, { text: turns, graph: turns });
