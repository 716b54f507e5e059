import { describe, expect, it } from 'vitest';
import { parseProcess } from '../../src/fewshot/library';
import { bundle } from '../../src/generated/bundle';
import { formatStats, libraryStats, MOST_FREQUENT_SEQUENCE, SNAPSHOT_WORDING } from './library-stats';

/**
 * The bundled libraries should look like a careful person's work against the real Wikipedia and Wikidata
 * (issue 15): as long as the human libraries, mixing text and graph evidence, and never speaking of our offline
 * stand-in. `npm run fewshot:check` prints these figures.
 */
const LIBRARIES = ['mintaka', 'qald9plus', 'compmix'] as const;
const MIN_MEAN_TOOL_CALLS = 5.5;
const MIN_SHARE_TEXT_AND_GRAPH = 0.5;
const MIN_MOST_FREQUENT_SEQUENCE = 3;

const filesOf = (library: string) =>
  bundle.fewshot
    .map((f) => ({ ...f, file: f.file.replace(/\\/g, '/') }))
    .filter((f) => f.file.startsWith(`fewshot/${library}/`) && f.file.endsWith('.txt'))
    .sort((a, b) => (a.file < b.file ? -1 : 1));

describe('few-shot library statistics', () => {
  for (const library of LIBRARIES) {
    const files = filesOf(library);
    const processes = files.map((f) => parseProcess(f.text, f.file));
    const stats = libraryStats(processes);

    it(`${library}: shaped like human solution processes`, () => {
      console.log(formatStats(library, stats));
      expect(stats.meanToolCalls, 'mean tool calls per process').toBeGreaterThanOrEqual(MIN_MEAN_TOOL_CALLS);
      expect(stats.textAndGraph, 'processes using both text tools and runQuery').toBeGreaterThanOrEqual(
        Math.ceil(stats.processes * MIN_SHARE_TEXT_AND_GRAPH),
      );
      expect(stats.mostFrequentSequence, `processes containing ${MOST_FREQUENT_SEQUENCE.join(' → ')}`).toBeGreaterThanOrEqual(
        MIN_MOST_FREQUENT_SEQUENCE,
      );
    });

    it(`${library}: no process speaks of the offline snapshot`, () => {
      const offending = files.flatMap((f) =>
        f.text.split('\n').flatMap((line, i) => (SNAPSHOT_WORDING.test(line) ? [`${f.file}:${i + 1}: ${line.slice(0, 120)}`] : [])),
      );
      expect(offending).toEqual([]);
    });
  }
});
