// Reading numbers the way tables and passages write them: "20,000", "$1.5 million", "ten thousand".

import { NUMBER_WORDS, SCALE_WORDS } from '../../text/words';

const SUFFIX: ReadonlyMap<string, number> = new Map([...SCALE_WORDS, ['k', 1e3], ['m', 1e6], ['mn', 1e6], ['bn', 1e9]]);

/** "twenty-five thousand" → 25000; undefined unless every word is a number word. */
export const wordsToNumber = (text: string): number | undefined => {
  const words = text.toLowerCase().replace(/-/g, ' ').split(/\s+/).filter((w) => w && w !== 'and');
  if (!words.length) return undefined;
  let total = 0;
  let current = 0;
  let seen = false;
  for (const [i, w] of words.entries()) {
    if (NUMBER_WORDS.has(w)) {
      current += NUMBER_WORDS.get(w)!;
      seen = true;
    } else if (w === 'hundred') {
      current = (current || 1) * 100;
      seen = true;
    } else if (SCALE_WORDS.has(w)) {
      total += (current || 1) * SCALE_WORDS.get(w)!;
      current = 0;
      seen = true;
    } else if (i === 0 && w === 'a') {
      current = 1;
    } else {
      return undefined;
    }
  }
  return seen ? total + current : undefined;
};

const NUMERIC = /^(?:about|approx\.?|approximately|around|over|~|≈)?\s*[-−]?[$€£¥]?\s*([-−]?\d[\d,]*(?:\.\d+)?|\.\d+)\s*(%|thousand|million|billion|trillion|k|m|mn|bn)?\.?$/i;

/** A number written with digits, separators, currency, a scale word or in words; undefined otherwise. */
export const parseNumber = (input: string | number): number | undefined => {
  if (typeof input === 'number') return Number.isFinite(input) ? input : undefined;
  const text = input.trim();
  if (!text) return undefined;
  const m = NUMERIC.exec(text);
  if (m) {
    const negative = /^[^\d]*[-−]/.test(text);
    const value = Number(m[1].replace(/[,−-]/g, ''));
    const scale = m[2] && m[2] !== '%' ? SUFFIX.get(m[2].toLowerCase())! : 1;
    return (negative ? -1 : 1) * value * scale;
  }
  const mixed = /^([-−]?\d+(?:\.\d+)?)\s+(thousand|million|billion|trillion)$/i.exec(text);
  if (mixed) return Number(mixed[1].replace('−', '-')) * SCALE_WORDS.get(mixed[2].toLowerCase())!;
  return wordsToNumber(text);
};
