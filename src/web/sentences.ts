/**
 * Splits prose into sentences. A boundary is end punctuation (. ! ? …), optional closing quotes or
 * brackets, whitespace, then something that can start a sentence (capital, digit, opening quote).
 * Candidates are vetoed after abbreviations (Mr., Dr., e.g., Inc.), dotted acronyms (U.S.) and
 * single-letter initials (J. K. Rowling); decimals (3.14) never match because no space follows the dot.
 */

// Lower-cased, without the final dot. Titles and company suffixes almost never end a sentence.
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'ft', 'fr', 'rev', 'hon', 'gen', 'col', 'lt', 'capt',
  'sgt', 'gov', 'sen', 'rep', 'pres', 'inc', 'ltd', 'co', 'corp', 'plc', 'bros', 'vs', 'v', 'e.g', 'i.e', 'cf',
  'approx', 'ca', 'no', 'nos', 'vol', 'pp', 'p', 'fig', 'figs', 'op', 'est', 'dept', 'univ', 'assn', 'ave', 'blvd',
  'rd', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'a.m', 'p.m', 'al',
]);

const BOUNDARY = /([.!?…]+)(["'”’)\]]*)(\s+)(?=["'“‘(\[]?[\p{Lu}\p{N}])/gu;

const lastWord = (text: string, end: number): string => {
  let i = end;
  while (i > 0 && !/\s/.test(text[i - 1]) && !'(["“'.includes(text[i - 1])) i--;
  return text.slice(i, end);
};

const isAbbreviation = (word: string): boolean => {
  const w = word.toLowerCase();
  if (ABBREVIATIONS.has(w)) return true;
  if (/^\p{L}$/u.test(word)) return true; // an initial: "J." in "J. K. Rowling"
  return /^(\p{L}\.)+\p{L}$/u.test(word); // a dotted acronym: "U.S", "U.K", "e.g"
};

/**
 * @example splitSentences('Dr. Smith paid $3.50. He left.') // ['Dr. Smith paid $3.50.', 'He left.']
 */
export const splitSentences = (text: string): string[] => {
  const out: string[] = [];
  let start = 0;
  // An exec loop rather than matchAll, which copies the pattern on every call; a boundary is never empty.
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
    const punct = m[1];
    const at = m.index!;
    // Only a single dot can belong to an abbreviation; "?" and "!" always end, an ellipsis before a capital too.
    if (punct === '.' && isAbbreviation(lastWord(text, at))) continue;
    const end = at + punct.length + m[2].length;
    const piece = text.slice(start, end).trim();
    if (piece) out.push(piece);
    start = end + m[3].length;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
};
