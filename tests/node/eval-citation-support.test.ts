import { describe, expect, it } from 'vitest';
import { citationSupport, compareCitationSupport, supportGrade } from '../../src/eval/metrics/citation-support';
import { citationSupportHtml } from '../../src/eval/report/citation-support';
import { riskCoverage } from '../../src/eval/report/risk-coverage';
import type { EvalItem, ItemScore, Prediction } from '../../src/eval/types';

// Issue 40: how many of an evaluation's verified citations support the answer, and what support says about accuracy.
const item = (id: string): EvalItem => ({ id, question: `Question ${id}?`, gold: { kind: 'crag', answer: 'x', alternatives: [] } });
const cite = (support: 'supports' | 'mentions' | undefined, quote = 'a quote') => ({ source: 'wikipedia', key: 'k', kind: 'search', quote, verified: true, ...(support ? { support } : {}) });

const predictions = new Map<string, Prediction>([
  ['a', { id: 'a', answer: '1995', confidence: 'one_source', agreementSources: ['wikipedia'], citations: [cite('supports'), cite('mentions', 'Michael Jordan — …March 1995…')] }],
  ['b', { id: 'b', answer: 'English', confidence: 'none', agreementSources: [], citations: [cite('mentions', 'Jane Austen was an English novelist.')] }],
  ['c', { id: 'c', answer: 'David Fincher', confidence: 'one_source', agreementSources: ['wikipedia'], citations: [cite('supports')] }],
  ['d', { id: 'd', answer: 'Paris', confidence: 'none', agreementSources: [], citations: [{ source: 'wikipedia', key: 'k', kind: 'search', verified: false }] }],
  ['e', { id: 'e', answer: null, error: 'HTTP 500' }],
]);
const items = ['a', 'b', 'c', 'd', 'e'].map(item);
const scores: ItemScore[] = [
  { id: 'a', score: 1, correct: true, missing: false },
  { id: 'b', score: 0, correct: false, missing: false },
  { id: 'c', score: 1, correct: true, missing: false },
  { id: 'd', score: 0, correct: false, missing: false },
  { id: 'e', score: 0, correct: false, missing: true },
];

describe('citation support in an evaluation', () => {
  it('counts the verified citations that support, with an interval, and accuracy by the answer’s support grade', () => {
    const s = citationSupport(items, predictions, scores);
    expect(s).toMatchObject({ verified: 4, supporting: 2, rate: 50, confidenceGraded: true, mentionsTotal: 2 });
    expect(s.ci95![0]).toBeLessThanOrEqual(50);
    expect(s.ci95![1]).toBeGreaterThanOrEqual(50);
    expect(s.ci95![0]).toBeGreaterThanOrEqual(0);
    expect(s.byGrade).toEqual([
      { label: 'supported', n: 2, accuracy: 100 },
      { label: 'mentioned only', n: 1, accuracy: 0 },
      { label: 'unverified', n: 1, accuracy: 0 },
    ]);
    expect(s.mentions.map((m) => [m.id, m.quote])).toEqual([
      ['a', 'Michael Jordan — …March 1995…'],
      ['b', 'Jane Austen was an English novelist.'],
    ]);
    // The report says it in words, with the citations that only mention their answer.
    const html = citationSupportHtml(s);
    expect(html).toContain('<b>2</b> support the answer: <b>50.0 %</b> [');
    expect(html).toContain('Jane Austen was an English novelist.');
  });

  it('says when the service did not grade its citations, and has no rate then', () => {
    const old = new Map<string, Prediction>([['a', { id: 'a', answer: '1995', confidence: 'one_source', agreementSources: ['wikipedia'], citations: [cite(undefined)] }]]);
    expect(supportGrade(old.get('a')!)).toBe('not graded');
    const s = citationSupport([item('a')], old, [scores[0]]);
    expect(s).toMatchObject({ verified: 0, rate: null, ci95: null, confidenceGraded: false, byGrade: [{ label: 'not graded', n: 1 }] });
    expect(citationSupportHtml(s)).toContain('did not grade its citations');
  });

  it('computes risk–coverage on the graded confidence: an answer its evidence only mentions is answered only at "none"', () => {
    const rc = riskCoverage(items, predictions, scores);
    const at = (t: string) => rc.rows.find((r) => r.threshold === t)!;
    expect(at('one_source')).toMatchObject({ answered: 2, accuracy: 100 });
    expect(at('none')).toMatchObject({ answered: 4, accuracy: 50 });
  });

  it('compares two evaluations’ support rates on the questions both answered', () => {
    const b = new Map(predictions);
    b.set('b', { ...predictions.get('b')!, citations: [cite('supports')] });
    expect(compareCitationSupport(['a', 'b', 'c', 'd'], predictions, b)).toEqual({ a: 50, b: 75, delta: 25 });
  });
});
