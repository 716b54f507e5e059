/**
 * Normalised answers, so that "The Beatles", "beatles" and "Beatles." compare equal, as do "1,000" and "1000",
 * "24 August 2011" and "2011-08-24", "yes (true)" and "Yes", "A, B and C" and "C, A, B".
 */

import { monthNumber, NUMBER_WORDS } from './words';

const monthIndex = (word: string): number => (monthNumber(word) ?? 0) - 1;

const pad = (n: number) => String(n).padStart(2, '0');

/** Dates written as words or with slashes become ISO `YYYY-MM-DD` (or `YYYY-MM`); other text is untouched. */
export const isoDates = (text: string): string =>
  text
    // 2011-08-24T00:00:00Z → 2011-08-24
    .replace(/\b(\d{4}-\d{2}-\d{2})T[\d:.]+Z?\b/g, '$1')
    // 24 August 2011
    .replace(/\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9}\.?),?\s+(\d{3,4})\b/g, (all, d, m, y) =>
      monthIndex(m) >= 0 ? `${y}-${pad(monthIndex(m) + 1)}-${pad(Number(d))}` : all,
    )
    // August 24, 2011
    .replace(/\b([A-Za-z]{3,9}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{3,4})\b/g, (all, m, d, y) =>
      monthIndex(m) >= 0 ? `${y}-${pad(monthIndex(m) + 1)}-${pad(Number(d))}` : all,
    )
    // August 2011
    .replace(/\b([A-Za-z]{3,9})\s+(\d{4})\b/g, (all, m, y) => (monthIndex(m) >= 0 ? `${y}-${pad(monthIndex(m) + 1)}` : all));

/** `1,000` → `1000`, `11.0` → `11`, `eleven` → `11`. */
const numbers = (text: string): string =>
  text
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\b(\d+)\.0+\b/g, '$1')
    .replace(/\b[a-z]+\b/g, (w) => {
      // Only the small numbers: "forty" in a name stays a word.
      const n = NUMBER_WORDS.get(w);
      return n !== undefined && n <= 20 ? String(n) : w;
    });

const YES = /^(yes|true|correct)\b/;
const NO = /^(no|false|incorrect)\b/;

/**
 * Text as words to compare: lower case, no accents, no articles, no punctuation, numbers and dates canonical.
 * Unlike normaliseItem it keeps an opening yes/no as it is, so it suits passages as well as answers.
 */
export const normaliseText = (text: string): string => {
  let t = isoDates(text.normalize('NFKD').replace(/[\u0300-\u036f]/g, ''));
  t = t.toLowerCase();
  t = numbers(t);
  // Keep '-' inside ISO dates and negative numbers; other punctuation becomes space.
  t = t.replace(/[^a-z0-9\s-]+/g, ' ').replace(/(^|\s)-+|-+(\s|$)/g, ' ');
  return t.replace(/\b(the|a|an)\b/g, ' ').replace(/\s+/g, ' ').trim();
};

/** One answer item: normaliseText, with an opening yes/true or no/false read as the bare word. */
export const normaliseItem = (text: string): string => {
  const t = normaliseText(text);
  if (YES.test(t)) return 'yes';
  if (NO.test(t)) return 'no';
  return t;
};

/** Splits a list answer (`A, B and C`, `A; B`, one per line) into its items. */
export const listItems = (text: string): string[] =>
  text
    .split(/\s*(?:[,;\n]|\band\b|&)\s*/i)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The comparable form of an answer: its items normalised, de-duplicated and sorted, joined with `|`.
 * Commas inside numbers (`1,000`) are resolved before splitting.
 * @example normaliseAnswer('The Dark Knight, Inception and Interstellar') // 'dark knight|inception|interstellar'
 */
export const normaliseAnswer = (text: string): string => {
  const noThousands = text.replace(/(\d),(?=\d{3}\b)/g, '$1');
  // A date like "August 24, 2011" carries a comma that is not a list separator.
  const dated = isoDates(noThousands);
  const items = listItems(dated).map(normaliseItem).filter(Boolean);
  return [...new Set(items)].sort().join('|');
};

/** `yes`/`no` when an answer opens with one ("Yes, he was awarded it in 2016."), else undefined. */
const polarity = (text: string): 'yes' | 'no' | undefined => {
  const first = normaliseItem(listItems(text)[0] ?? '');
  return first === 'yes' || first === 'no' ? first : undefined;
};

const tokens = (s: string) => s.split(/[\s|]+/).filter(Boolean);

/**
 * Whether two answers say the same thing: equal after normalisation, or the shorter one's words appear
 * in order inside the longer one (a sentence from a page against a label from the graph:
 * "He was born in Chicago, Illinois." vs "Chicago"). Yes/no answers must match exactly.
 */
export const sameAnswer = (a: string, b: string): boolean => {
  const na = normaliseAnswer(a);
  const nb = normaliseAnswer(b);
  if (!na || !nb) return false;
  if (na === nb) return true;
  const pa = polarity(a);
  const pb = polarity(b);
  if (pa || pb) return pa === pb;
  const [short, long] = na.length <= nb.length ? [na, nb] : [nb, na];
  const shortItems = short.split('|');
  const longText = ` ${tokens(long).join(' ')} `;
  return shortItems.every((item) => longText.includes(` ${tokens(item).join(' ')} `));
};

/** Answers that say nothing: empty, "I don't know", "the page does not say", "no results". */
export const isNonAnswer = (text: string | undefined): boolean =>
  !text ||
  !text.trim() ||
  /^(i\s+(do\s+not|don'?t)\s+know|unknown|none|n\/a|not found|no answer|the page does not say|no results?)\b/i.test(text.trim());
