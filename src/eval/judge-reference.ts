import type { QaldLabelTable } from './metrics/qald-labels';
import { qidOf } from './metrics/qald-labels';
import type { EvalItem } from './types';

const MAX_ITEMS = 50;

const list = (values: readonly string[]) =>
  values.length > MAX_ITEMS ? `${values.slice(0, MAX_ITEMS).join('; ')}; … (${values.length} in all)` : values.join('; ');

/** The gold answer written for a judge: names instead of IRIs (from the label table), yes/no instead of true/false. */
export const judgeReference = (item: EvalItem, labels?: QaldLabelTable, language = 'en'): string => {
  const g = item.gold;
  switch (g.kind) {
    case 'mintaka':
      return g.text === 'True' ? 'Yes' : g.text === 'False' ? 'No' : g.text ?? JSON.stringify(g.kg);
    case 'qald9plus': {
      if (g.boolean !== undefined) return g.boolean ? 'Yes' : 'No';
      if (!g.answers.length) return '(none: the benchmark expects an empty answer)';
      return list(g.answers.map((a) => {
        const q = qidOf(a.replace(/^wd:/, 'http://www.wikidata.org/entity/'));
        const names = q ? labels?.entities[q]?.[language] : undefined;
        return q ? (names?.length ? names.join(' / ') : q) : a.replace(/T00:00:00Z$/, '');
      }));
    }
    case 'compmix':
      return list(g.answers.map((a) => a.label)) || g.answerText;
    case 'hybridqa':
      return g.answer;
    case 'mmqa':
      return list(g.answers);
    case 'crag':
      return [g.answer, ...g.alternatives].join(' | ');
  }
};
