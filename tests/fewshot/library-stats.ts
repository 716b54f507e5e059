import type { SolutionProcess } from '../../src/fewshot/library';

/**
 * Shape statistics of a few-shot library, the figures the HQA paper reports for human solution processes
 * (mean tool calls 6.75; text and graph evidence combined; the most frequent tool sequence). A library that is
 * much shorter or more graph-first than a person's work teaches the agent a narrower habit than the paper's.
 */
export const MOST_FREQUENT_SEQUENCE = ['wikisearch', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel'] as const;

const TEXT_TOOLS = new Set(['wikisearch', 'read']);

/** Words that only make sense for our offline stand-in; with live evidence they would teach a false world. */
export const SNAPSHOT_WORDING = /\bsnapshot\b|\bin this (?:world|corpus|graph|collection)\b|no page of (?:his|her|its|their) own/i;

export interface LibraryStats {
  processes: number;
  meanToolCalls: number;
  textAndGraph: number;
  readAndRunQuery: number;
  mostFrequentSequence: number;
  sparqlBeforeGenerate: number;
}

const containsRun = (seq: readonly string[], run: readonly string[]): boolean =>
  seq.some((_, i) => run.every((tool, j) => seq[i + j] === tool));

/** Hand-written SPARQL: a runQuery before the process ever asked generateQuery for one. */
const runsSparqlFirst = (seq: readonly string[]): boolean => {
  const run = seq.indexOf('runQuery');
  const gen = seq.indexOf('generateQuery');
  return run >= 0 && (gen < 0 || run < gen);
};

export const libraryStats = (processes: readonly SolutionProcess[]): LibraryStats => {
  const seqs = processes.map((p) => p.toolSequence);
  const count = (pred: (s: readonly string[]) => boolean) => seqs.filter(pred).length;
  const total = seqs.reduce((n, s) => n + s.length, 0);
  return {
    processes: seqs.length,
    meanToolCalls: seqs.length ? total / seqs.length : 0,
    textAndGraph: count((s) => s.some((t) => TEXT_TOOLS.has(t)) && s.includes('runQuery')),
    readAndRunQuery: count((s) => s.includes('read') && s.includes('runQuery')),
    mostFrequentSequence: count((s) => containsRun(s, MOST_FREQUENT_SEQUENCE)),
    sparqlBeforeGenerate: count(runsSparqlFirst),
  };
};

export const formatStats = (library: string, s: LibraryStats): string =>
  `${library.padEnd(10)} processes ${s.processes} · mean tool calls ${s.meanToolCalls.toFixed(2)} · ` +
  `text+graph ${s.textAndGraph}/${s.processes} (read+runQuery ${s.readAndRunQuery}) · ` +
  `most frequent sequence ${s.mostFrequentSequence} · SPARQL before generateQuery ${s.sparqlBeforeGenerate}`;
