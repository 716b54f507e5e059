import { qidOf, type QaldLabelTable } from '../metrics/qald-labels';
import type { EvalItem } from '../types';

/**
 * The gold answer as a model that knows it would write it: the text the benchmark's own scorer expects.
 * QALD entities are written by name (the first name the label table has in the question's language, else
 * the Q-id), lists as "A, B and C", dates as ISO days, yes/no for ASK questions, "I don't know" for an
 * empty gold set.
 */
export const goldAnswerText = (item: EvalItem, labels?: QaldLabelTable, language = 'en'): string => {
  const g = item.gold;
  switch (g.kind) {
    case 'mintaka':
      return g.text ?? (Array.isArray(g.kg) ? g.kg.map(String).join(', ') : '');
    case 'qald9plus': {
      if (g.boolean !== undefined) return g.boolean ? 'Yes' : 'No';
      const names = g.answers.map((a) => {
        const q = qidOf(a);
        if (q) return labels?.entities[q]?.[language]?.[0] ?? q;
        return /^-?\d{1,4}-\d{2}-\d{2}T00:00:00Z$/.test(a) ? a.slice(0, a.indexOf('T')) : a;
      });
      return names.length === 0 ? "I don't know" : names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    }
    case 'compmix':
      return g.answers[0]?.label ?? g.answerText;
    case 'hybridqa':
      return g.answer;
    case 'mmqa':
      return g.answers.join(', ');
    case 'crag':
      return g.answer;
  }
};

/** The same gold answer as a program's return value (an array for a multi-answer MMQA question). */
export const goldProgramValue = (item: EvalItem, text: string): string | string[] =>
  item.gold.kind === 'mmqa' && item.gold.answers.length > 1 ? item.gold.answers : text;
