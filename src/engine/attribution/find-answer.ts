import { listItems, normaliseText } from '../../text/answers';
import type { EvidenceDocument, Segment } from './documents';

/**
 * Whether an answer occurs in a document, and the span to quote. An answer occurs when the whole of it, or each
 * item of a list answer, is found in a segment: as the same words after normalisation (case, accents, articles,
 * punctuation, "1,000" = "1000", "24 August 2011" = "2011-08-24"), a number as the same value, a year inside a
 * date, an entity by its id or its label. A sentence (the read tool writes one or two) occurs when the names and
 * numbers it states stand in one segment, or, when it states none, three in four of its content words do.
 * yes/no occurs only in a yes/no fact (an ASK result).
 */

const MAX_ITEMS = 20;
const MAX_QUOTE_CHARS = 280;
/** Share of a long answer's content words one segment must hold. */
const SENTENCE_COVERAGE = 0.75;
const SENTENCE_WORDS = 4;
/** Capitalised words that open a sentence without naming anything. */
const OPENERS = new Set('it he she they the this that these those a an in on at yes no there his her its their according'.split(' '));
const FILLER = new Set('of in on at to and or is was were are be been by for with as from that this it its he she they his her their has have had which who also'.split(' '));

const NUMBER = /^-?\d+(?:\.\d+)?$/;

interface Prepared {
  segment: Segment;
  /** Normalised, padded with spaces, so " word " finds whole words only. */
  words: string;
  /** The values of the numbers standing alone in the text (not the parts of a time like 2:21:10). */
  numbers: Set<number>;
}

const prepared = new WeakMap<EvidenceDocument, Prepared[]>();

const prepare = (doc: EvidenceDocument): Prepared[] => {
  let p = prepared.get(doc);
  if (!p) {
    p = doc.segments.map((segment) => ({ segment, words: ` ${normaliseText(segment.text)} `, numbers: numbersIn(segment.text) }));
    prepared.set(doc, p);
  }
  return p;
};

/** Each segment's text normalised and padded with spaces (cached with the document). */
export const segmentWords = (doc: EvidenceDocument): string[] => prepare(doc).map((p) => p.words);

const STANDALONE_NUMBER = /(?<![\d:./-])\d[\d,]*(?:\.\d+)?(?![\d:/]|\.\d)/g;
const numbersIn = (text: string): Set<number> => new Set((text.match(STANDALONE_NUMBER) ?? []).map((n) => Number(n.replace(/,/g, ''))));

/** An item to look for: its normalised words, and for a sentence the names and numbers it states. */
interface Sought {
  words: string;
  named: string[];
}

const sought = (raw: string): Sought => {
  const words = normaliseText(raw);
  const tokens = raw.split(/\s+/).filter(Boolean);
  if (tokens.length < SENTENCE_WORDS) return { words, named: [] };
  const named = tokens
    .filter((t, i) => /^[A-Z0-9]/.test(t) && !(i === 0 && OPENERS.has(t.toLowerCase())))
    .flatMap((t) => normaliseText(t).split(' '))
    .filter((w) => w && !FILLER.has(w));
  return { words, named: [...new Set(named)] };
};

const holds = (p: Prepared, item: Sought): boolean => {
  const w = item.words;
  // A number is a value: 21 is not found in 2:21:10, 1000 is found in "1,000".
  if (NUMBER.test(w)) return p.numbers.has(Number(w));
  if (p.words.includes(` ${w} `)) return true;
  if (item.named.length) return item.named.every((n) => p.words.includes(` ${n} `));
  const content = w.split(' ').filter((x) => !FILLER.has(x));
  if (content.length < 2) return false;
  return content.filter((x) => p.words.includes(` ${x} `)).length / content.length >= SENTENCE_COVERAGE;
};

const truthOf = (normalised: string): 'yes' | 'no' | undefined => (/^(yes|true)$/.test(normalised) ? 'yes' : /^(no|false)$/.test(normalised) ? 'no' : undefined);

/** Two neighbouring segments as one quote; a line without closing punctuation (a page's title, a heading) leads. */
const joined = (a: Segment, b: Segment): Segment => ({
  text: `${a.text}${/[.!?:;]$/.test(a.text.trim()) ? ' ' : ' — '}${b.text}`,
  url: a.url ?? b.url,
});

/**
 * The segment an item occurs in. A segment that is nothing but the answer (a page's title, a heading) shows nowhere
 * what the page says of it: another segment that holds the answer is quoted instead, or else the bare one with the
 * segment after it (the title with the page's opening sentence).
 */
const segmentWith = (doc: EvidenceDocument, raw: string): Segment | undefined => {
  const item = sought(raw);
  if (!item.words) return undefined;
  const truth = truthOf(item.words);
  if (truth) return doc.segments.find((s) => s.truth === truth);
  const all = prepare(doc);
  const at = all.findIndex((p) => !p.segment.truth && holds(p, item));
  if (at >= 0) {
    // A table cell quotes its row, which says something; a line that is only the answer does not.
    const bare = (p: Prepared) => !p.segment.quote && p.words.trim() === item.words;
    if (!bare(all[at])) return all[at].segment;
    const telling = all.find((p, i) => i > at && !p.segment.truth && !bare(p) && holds(p, item));
    if (telling) return telling.segment;
    return all[at + 1] && !all[at].segment.quote ? joined(all[at].segment, all[at + 1].segment) : all[at].segment;
  }
  if (!item.named.length) return undefined;
  // A sentence may name what the page says over two sentences ("X (born …) is … . He was born in Chicago.").
  for (let i = 0; i + 1 < all.length; i++) {
    const [a, b] = [all[i], all[i + 1]];
    if (item.named.every((n) => a.words.includes(` ${n} `) || b.words.includes(` ${n} `))) return joined(a.segment, b.segment);
  }
  return undefined;
};

/** Where in `text` the item is seen first: the answer as written, else its first name, number or word found. */
const anchorOf = (text: string, raw: string, item: Sought): number => {
  const lower = text.toLowerCase();
  const whole = lower.indexOf(raw.trim().toLowerCase().slice(0, 40));
  if (whole >= 0) return whole;
  const tokens = [...item.named, ...(raw.match(/\d+/g) ?? []), ...item.words.split(' ').filter((w) => w.length > 2 && !FILLER.has(w))];
  const found = tokens.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0);
  return found.length ? Math.min(...found) : 0;
};

/**
 * A quote no longer than a few lines: a long segment is cut to a window around where the answer stands. The window
 * must still hold the answer by the test that verified it (a date written another way, a sentence's names spread
 * over the segment); when it does not, the whole segment is quoted (segments are at most a paragraph).
 */
const clip = (text: string, raw: string) => {
  if (text.length <= MAX_QUOTE_CHARS) return text;
  const item = sought(raw);
  const at = anchorOf(text, raw, item);
  const start = Math.max(0, Math.min(at - MAX_QUOTE_CHARS / 3, text.length - MAX_QUOTE_CHARS));
  const window = text.slice(start, start + MAX_QUOTE_CHARS);
  const inside: Prepared = { segment: { text: window }, words: ` ${normaliseText(window)} `, numbers: numbersIn(window) };
  if (item.words && !truthOf(item.words) && !holds(inside, item)) return text;
  return `${start > 0 ? '…' : ''}${window}${start + MAX_QUOTE_CHARS < text.length ? '…' : ''}`;
};

export interface Found {
  quote: string;
  url?: string;
}

/** Where `answer` occurs in `doc` (the quote contains it), or undefined. */
export const findAnswer = (answer: string, doc: EvidenceDocument): Found | undefined => {
  const whole = answer.replace(/\(true\)|\(false\)/gi, '').trim();
  if (!normaliseText(whole)) return undefined;
  const one = segmentWith(doc, whole);
  const hits: Array<{ segment: Segment; item: string }> = one ? [{ segment: one, item: answer }] : [];
  if (!one) {
    const items = listItems(answer).slice(0, MAX_ITEMS);
    if (items.length < 2) return undefined;
    for (const item of items) {
      const s = segmentWith(doc, item);
      if (!s) return undefined;
      if (!hits.some((h) => h.segment === s)) hits.push({ segment: s, item });
    }
  }
  const quote = hits
    .slice(0, 3)
    .map((h) => clip(h.segment.quote ?? h.segment.text, h.item))
    .join(' … ');
  return { quote, url: hits[0].segment.url ?? doc.url };
};
