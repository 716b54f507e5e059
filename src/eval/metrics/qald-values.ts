/**
 * QALD gold literals compared as values: a date written "16 December 1773" equals the gold
 * `1773-12-16T00:00:00Z`, "2" equals the integer literal `2`, and text literals compare after case,
 * accent and punctuation folding. IRIs and booleans have their own keys (see qaldAnswerKey).
 */

import { monthNumber, NUMBER_WORDS } from '../../text/words';

const month = (word: string): number => monthNumber(word) ?? 0;

const pad = (n: number | string, width = 2) => String(n).padStart(width, '0');

/** Folds case, accents, punctuation and spacing: the comparable form of a label or a text literal. */
export const foldText = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * A date as `YYYY-MM-DD`, `YYYY-MM` or `YYYY` (years without leading zeros, so `0632` and `632` meet),
 * from ISO forms (with or without time) and "16 December 1773" / "December 16, 1773" / "December 1773".
 */
export const parseDate = (raw: string): string | undefined => {
  const t = raw.trim().replace(/\.$/, '');
  const year = (y: string) => String(Number(y));
  let m = /^(-?\d{1,4})-(\d{2})-(\d{2})(?:T[\d:.]+Z?)?$/.exec(t);
  if (m) return `${year(m[1])}-${m[2]}-${m[3]}`;
  m = /^(\d{1,2})(?:st|nd|rd|th)?\.?\s+([A-Za-z]{3,9}\.?),?\s+(\d{1,4})$/.exec(t);
  if (m && month(m[2])) return `${year(m[3])}-${pad(month(m[2]))}-${pad(m[1])}`;
  m = /^([A-Za-z]{3,9}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{1,4})$/.exec(t);
  if (m && month(m[1])) return `${year(m[3])}-${pad(month(m[1]))}-${pad(m[2])}`;
  m = /^([A-Za-z]{3,9})\s+(\d{3,4})$/.exec(t);
  if (m && month(m[1])) return `${year(m[2])}-${pad(month(m[1]))}`;
  m = /^(\d{4})-(\d{2})$/.exec(t);
  if (m) return `${year(m[1])}-${m[2]}`;
  return undefined;
};

/**
 * A number from "2", "1,000", "12.50", "two", or a number followed by a unit ("73 metres"): the
 * canonical decimal string. A bare four-digit year is left to the caller (it is also a date).
 */
export const parseNumber = (raw: string): string | undefined => {
  const t = raw.trim().replace(/\.$/, '').toLowerCase();
  const word = NUMBER_WORDS.get(t);
  if (word !== undefined && word <= 12) return String(word);
  const m = /^([-+]?\d{1,3}(?:,\d{3})+|[-+]?\d+)(\.\d+)?(?:\s*[\p{L}%°][\p{L}\s²³%°.]*)?$/u.exec(t);
  if (!m) return undefined;
  const n = Number(`${m[1].replace(/,/g, '')}${m[2] ?? ''}`);
  return Number.isFinite(n) ? String(n) : undefined;
};

/** The value key of a literal: `date:…`, `number:…` or `text:…`. */
export const literalKey = (value: string): string => {
  const date = parseDate(value);
  if (date && !/^\d+$/.test(value.trim())) return `date:${date}`;
  const n = parseNumber(value);
  if (n !== undefined) return `number:${n}`;
  return `text:${foldText(value)}`;
};

/**
 * Wikidata stores a year-precision date as 1 January of that year (`1981-01-01T00:00:00Z`), so a
 * prediction of "1981" (or "January 1981") matches such a gold date; a full date must match exactly.
 */
export const snapToGoldDate = (predictedKey: string, gold: ReadonlySet<string>): string => {
  const m = /^(?:date|number):(-?\d+)(?:-(\d{2}))?$/.exec(predictedKey);
  if (!m) return predictedKey;
  const candidate = `date:${m[1]}-${m[2] ?? '01'}-01`;
  return gold.has(candidate) ? candidate : predictedKey;
};
