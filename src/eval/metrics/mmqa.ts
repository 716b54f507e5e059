import { pyFloat, pyFloatStr, pyRound2, pySplit, PY_PUNCTUATION, removeArticles } from '../pytext';
import { maxAssignment } from './assignment';
import { NUMBER_WORDS, SCALE_WORDS } from '../../text/words';

/**
 * MultiModalQA's evaluate.py (DROP-style): answers are lists of spans; each span is normalised per
 * token (lower, punctuation removed unless the token is a number, numbers and number words written
 * as Python floats, articles removed); EM compares the sets of spans, F1 aligns bags of tokens
 * one-to-one and averages, rounded to two decimals as the official script does.
 */

// word2number knows no "trillion".
const WORD2NUMBER: ReadonlyMap<string, number> = new Map([
  ...NUMBER_WORDS,
  ['hundred', 100],
  ...[...SCALE_WORDS].filter(([w]) => w !== 'trillion'),
]);

/**
 * The `word2number` reading of one token: number words are picked out of the token's words;
 * none means "not a number". A lone "point" reads as 0, as that library does.
 */
export const wordToNumber = (text: string): number | undefined => {
  const lowered = text.replace(/-/g, ' ').toLowerCase();
  if (/^\d+$/.test(lowered)) return Number(lowered);
  const words = pySplit(lowered).filter((w) => WORD2NUMBER.has(w) || w === 'point');
  if (words.length === 0) return undefined;
  const pointAt = words.indexOf('point');
  if (words.filter((w) => w === 'point').length > 1) return undefined;
  const integerWords = pointAt >= 0 ? words.slice(0, pointAt) : words;
  const decimalWords = pointAt >= 0 ? words.slice(pointAt + 1) : [];
  let total = 0;
  let group = 0;
  for (const w of integerWords) {
    const n = WORD2NUMBER.get(w)!;
    if (n === 100) group = (group || 1) * 100;
    else if (n >= 1000) {
      total += (group || 1) * n;
      group = 0;
    } else group += n;
  }
  total += group;
  if (decimalWords.length > 0) {
    const digits = decimalWords.map((w) => WORD2NUMBER.get(w)).filter((n) => n !== undefined && n < 10);
    total += Number(`0.${digits.join('')}`);
  }
  return total;
};

const isNumber = (text: string): boolean => pyFloat(text) !== undefined;

const normalizeNumber = (text: string): string => {
  const f = pyFloat(text);
  if (f !== undefined) return pyFloatStr(f);
  const w = wordToNumber(text);
  return w !== undefined ? pyFloatStr(w) : text;
};

const removePunc = (text: string): string => {
  if (isNumber(text)) return text;
  let out = '';
  for (const ch of text) if (!PY_PUNCTUATION.has(ch)) out += ch;
  return out;
};

/** One span normalised token by token (tokens split on spaces and hyphens). */
export const mmqaNormalize = (text: string): string =>
  text
    .split(/ |-/)
    .map((token) => pySplit(removeArticles(normalizeNumber(removePunc(token.toLowerCase())))).join(' '))
    .filter((part) => part.trim().length > 0 && pySplit(part).length > 0)
    .join(' ')
    .trim();

const toBags = (answer: string | readonly string[]): { spans: string[]; bags: Set<string>[] } => {
  const raw = typeof answer === 'string' ? [answer] : [...answer];
  const spans = raw.map(mmqaNormalize);
  return { spans, bags: spans.map((s) => new Set(pySplit(s))) };
};

const bagF1 = (pred: Set<string>, gold: Set<string>): number => {
  let inter = 0;
  for (const t of gold) if (pred.has(t)) inter++;
  const precision = pred.size === 0 ? 1 : inter / pred.size;
  const recall = gold.size === 0 ? 1 : inter / gold.size;
  return precision === 0 && recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
};

const numbersMatch = (gold: Set<string>, pred: Set<string>): boolean => {
  const goldNumbers = [...gold].filter(isNumber);
  if (goldNumbers.length === 0) return true;
  const predNumbers = new Set([...pred].filter(isNumber));
  return goldNumbers.some((n) => predNumbers.has(n));
};

export const mmqaListEm = (pred: string | readonly string[], gold: string | readonly string[]): number => {
  const p = toBags(pred).spans;
  const g = toBags(gold).spans;
  const ps = new Set(p);
  const gs = new Set(g);
  return ps.size === gs.size && [...ps].every((s) => gs.has(s)) && p.length === g.length ? 1 : 0;
};

export const mmqaListF1 = (pred: string | readonly string[], gold: string | readonly string[]): number => {
  const p = toBags(pred).bags;
  const g = toBags(gold).bags;
  const scores = g.map((gb) => p.map((pb) => (numbersMatch(gb, pb) ? bagF1(pb, gb) : 0)));
  const assignment = maxAssignment(scores);
  const size = Math.max(g.length, p.length);
  if (size === 0) return NaN;
  const best = new Array(size).fill(0);
  assignment.forEach((col, row) => {
    if (col >= 0) best[row] = Math.max(best[row], scores[row][col]);
  });
  let sum = 0;
  for (const s of best) sum += s;
  return pyRound2(sum / size);
};
