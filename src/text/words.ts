// English month names and number words, shared by answer normalisation, program mode and the eval metrics.
// Maps, not plain objects: a word such as "constructor" must not read as a number.

export const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * The month (1 to 12) that a name or an abbreviation of three letters or more stands for; undefined otherwise.
 * @example monthNumber('Sept.') // 9
 */
export const monthNumber = (word: string): number | undefined => {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return undefined;
  const i = MONTH_NAMES.findIndex((m) => m.startsWith(w));
  return i >= 0 ? i + 1 : undefined;
};

const UNITS = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = 'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ');

/** Number words below a hundred that stand alone: "zero" to "nineteen" and the tens. */
export const NUMBER_WORDS: ReadonlyMap<string, number> = new Map([
  ...UNITS.map((w, i) => [w, i] as const),
  ...TENS.map((w, i) => [w, (i + 2) * 10] as const),
]);

/** Words that multiply the number before them, from a thousand up (a hundred is read on its own). */
export const SCALE_WORDS: ReadonlyMap<string, number> = new Map([
  ['thousand', 1e3],
  ['million', 1e6],
  ['billion', 1e9],
  ['trillion', 1e12],
]);
