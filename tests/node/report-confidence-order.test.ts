import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIDENCE_LEVELS } from '../../src/engine/confidence';
import { accuracyByConfidence } from '../../src/eval/report/analysis';
import { riskCoverage } from '../../src/eval/report/risk-coverage';
import type { EvalItem, Prediction, ScoreResult } from '../../src/eval/types';

/**
 * One confidence order (docs/CONFIDENCE.md): `none` < `conflict` < `one_source` < `two_agree` < `all_agree`. The
 * evaluation report lists its accuracy per level in that order, most backed first, and its risk–coverage table
 * ranks thresholds by it; a conflict (verified sources that disagree) is less backed than one verified source.
 */
const LEVELS_IN_DOC = /the levels rank ((?:`\w+`\s*<\s*)+`\w+`)/;

const item = (id: string): EvalItem => ({ id, question: id, gold: { kind: 'crag', answer: 'x' } as EvalItem['gold'] });

describe('the confidence order', () => {
  it('is the one docs/CONFIDENCE.md states', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/CONFIDENCE.md'), 'utf8').replace(/\s+/g, ' ');
    const stated = doc.match(LEVELS_IN_DOC)?.[1].split('<').map((l) => l.trim().replace(/`/g, ''));
    expect(stated).toEqual([...CONFIDENCE_LEVELS]);
  });

  it("orders the report's accuracy per level from the most backed to the least, one_source above conflict", () => {
    // Listed in a scrambled order, each level once, and one prediction from a service that reported no confidence.
    const levels = ['conflict', 'all_agree', 'none', 'one_source', 'two_agree', undefined];
    const items = levels.map((_, k) => item(`q${k}`));
    const predictions = new Map<string, Prediction>(levels.map((c, k) => [`q${k}`, { id: `q${k}`, answer: 'x', ...(c ? { confidence: c } : {}) }]));
    const result: ScoreResult = { benchmark: 'crag', n: items.length, metrics: {}, items: items.map((i) => ({ id: i.id, score: 1, correct: true, missing: false })) };
    expect(accuracyByConfidence(items, predictions, result).map((g) => g.label)).toEqual(['all_agree', 'two_agree', 'one_source', 'conflict', 'none', 'unreported']);
  });

  it('keeps a conflicting answer out when the risk–coverage table answers from one_source up', () => {
    const levels = ['conflict', 'one_source'];
    const items = levels.map((_, k) => item(`q${k}`));
    const predictions = new Map<string, Prediction>(levels.map((c, k) => [`q${k}`, { id: `q${k}`, answer: 'x', confidence: c }]));
    const rc = riskCoverage(items, predictions, items.map((i) => ({ id: i.id, score: 1, correct: true, missing: false })));
    expect(rc.rows.map((r) => [r.threshold, r.answered])).toEqual([
      ['all_agree', 0],
      ['two_agree', 0],
      ['one_source', 1],
      ['conflict', 2],
      ['none', 2],
    ]);
  });
});
