import type { EvalItem, Prediction } from '../types';

/**
 * Gold-format quirks: reasons a perfect model still scores below 100 on an item, or scores 100 only by a rule
 * of the scorer. docs/EVAL.md ("Rehearsal quirks") describes each one.
 */
export const QUIRKS = {
  'crag-dynamic-abstains':
    'CRAG: the question is dynamic (fast-changing or real-time) and the crag variant, like the published final system, answers "I don\'t know" to dynamic questions',
  'qald-empty-gold': 'QALD-9-Plus: the file gives this question an empty answer set (the answers were lost upstream); "I don\'t know" matches it by GERBIL\'s empty-answer rule',
  'qald-ask-without-boolean': 'QALD-9-Plus: an ASK question whose boolean answer is missing from the file',
  'qald-no-name': 'QALD-9-Plus: the label table has no name for a gold entity in the question\'s language, so the answer names it by Q-id',
} as const;

export type QuirkId = keyof typeof QUIRKS;

const IDK = /i\s+(do\s+not|don'?t)\s+know/i;

/** The quirk that explains an item's score (below 100, or 100 only through a rule), if one applies. */
export const quirkOf = (item: EvalItem, prediction: Prediction | undefined, opts: { namesMissing?: boolean } = {}): QuirkId | undefined => {
  const g = item.gold;
  if (g.kind === 'crag' && prediction?.dynamism === 'dynamic' && IDK.test(prediction.answer ?? '')) return 'crag-dynamic-abstains';
  if (g.kind === 'qald9plus') {
    if (g.answers.length === 0) return item.type === 'ask' ? 'qald-ask-without-boolean' : 'qald-empty-gold';
    if (opts.namesMissing) return 'qald-no-name';
  }
  return undefined;
};
