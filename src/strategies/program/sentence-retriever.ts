import { levenshtein } from '../../fewshot/levenshtein';
import { splitSentences } from '../../web';
import type { ProgramContext } from './input';

// HProPro's retriever for query simplification, in our own code: every linked passage is cut into sentences;
// a sentence is kept when it is close to the question both by TF-IDF over word bigrams and trigrams and by the
// longest substring it shares with the question; a sentence whose shared part is already a table cell is dropped,
// because substituting it would change nothing.

const STOPWORDS = new Set(
  ('a an and are as at be been being by for from had has have he her his i in is it its of on or she that the their them ' +
    'they this to was were which who whom what when where why how with you your did does do not no than then there these those').split(' '),
);

const MAX_SENTENCES = 2_000;
const MAX_SENTENCE_CHARS = 400;
/** A sentence may count for its passage below this distance… */
const PASSAGE_THRESHOLD = 0.95;
/** …and is kept below this one; a passage's single best sentence is kept anyway when nothing beats it. */
const KEEP_THRESHOLD = 0.8;
/** Shared text this similar (0-100) to a table cell is already in the table. */
const IN_TABLE_SIMILARITY = 60;

const words = (text: string) =>
  (text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []).filter((w) => !STOPWORDS.has(w));

const ngrams = (text: string): string[] => {
  const w = words(text);
  const out: string[] = [];
  for (let n = 2; n <= 3; n++) for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n).join(' '));
  return out;
};

/** Cosine distances between the question and each sentence, TF-IDF fitted on the sentences (smoothed idf, l2 norm). */
const tfidfDistances = (question: string, sentences: string[]): number[] => {
  const docs = sentences.map(ngrams);
  const df = new Map<string, number>();
  for (const d of docs) for (const g of new Set(d)) df.set(g, (df.get(g) ?? 0) + 1);
  const idf = (g: string) => Math.log((1 + docs.length) / (1 + (df.get(g) ?? 0))) + 1;
  const vector = (grams: string[], known: boolean) => {
    const v = new Map<string, number>();
    for (const g of grams) if (!known || df.has(g)) v.set(g, (v.get(g) ?? 0) + 1);
    let norm = 0;
    for (const [g, tf] of v) {
      const w = tf * idf(g);
      v.set(g, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [g, w] of v) v.set(g, w / norm);
    return v;
  };
  const q = vector(ngrams(question), true);
  return docs.map((d) => {
    const v = vector(d, false);
    let dot = 0;
    for (const [g, w] of q) dot += w * (v.get(g) ?? 0);
    return 1 - dot;
  });
};

/** Longest common substring (case-insensitive) of a and b. */
export const longestCommonSubstring = (a: string, b: string): string => {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let best = 0;
  let end = 0;
  let prev = new Uint16Array(t.length + 1);
  let cur = new Uint16Array(t.length + 1);
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      cur[j] = s[i - 1] === t[j - 1] ? prev[j - 1] + 1 : 0;
      if (cur[j] > best) {
        best = cur[j];
        end = i;
      }
    }
    [prev, cur] = [cur, prev];
    cur.fill(0);
  }
  return a.slice(end - best, end);
};

/** 0-100 similarity from the edit distance, like a fuzzy "ratio". */
const similarity = (a: string, b: string) => {
  const total = a.length + b.length;
  if (!total) return 100;
  return Math.round((100 * (total - levenshtein(a, b))) / total);
};

interface Scored {
  key: string;
  sentence: string;
  distance: number;
  shared?: string;
}

/** Per passage: sentences under the keep threshold, or its best one when none is (if under the passage threshold). */
const select = (scored: Scored[]): Scored[] => {
  const out: Scored[] = [];
  const best = new Map<string, Scored>();
  for (const s of scored) {
    if (s.distance >= PASSAGE_THRESHOLD) continue;
    if (s.distance <= KEEP_THRESHOLD) out.push(s);
    const b = best.get(s.key);
    if (!b || s.distance < b.distance) best.set(s.key, s);
  }
  let overall: Scored | undefined;
  for (const b of best.values()) if (!overall || b.distance < overall.distance) overall = b;
  if (overall && overall.distance > KEEP_THRESHOLD) out.push(overall);
  return out;
};

/**
 * Knowledge lines for query simplification, "cell text: sentence", from the sentences that match the question
 * by both measures. Empty when nothing matches (then the question is not rewritten).
 */
export const retrieveSentences = (question: string, input: ProgramContext): string[] => {
  const cellsOf = new Map<string, string[]>();
  input.table.rows.forEach((cells) =>
    cells.forEach((c) => c.links?.forEach((l) => (l in input.passages ? cellsOf.set(l, [...(cellsOf.get(l) ?? []), c.text]) : undefined))),
  );
  const pieces: { key: string; sentence: string }[] = [];
  for (const key of cellsOf.keys()) {
    for (const sentence of splitSentences(input.passages[key])) {
      if (pieces.length >= MAX_SENTENCES) break;
      pieces.push({ key, sentence: sentence.slice(0, MAX_SENTENCE_CHARS) });
    }
  }
  if (!pieces.length || !question.trim()) return [];
  const tfidf = tfidfDistances(question, pieces.map((p) => p.sentence));
  const byTfidf = select(pieces.map((p, i) => ({ ...p, distance: tfidf[i] })));
  const bySubstring = select(
    pieces.map((p) => {
      const shared = longestCommonSubstring(question, p.sentence);
      return { ...p, shared, distance: 1 - shared.length / question.length };
    }),
  );
  const inTfidf = new Set(byTfidf.map((s) => `${s.key}\u0000${s.sentence}`));
  const tableTexts = [...new Set([...input.table.columns, input.table.title ?? '', ...input.table.rows.flat().map((c) => c.text)].map((t) => t.trim().toLowerCase()).filter(Boolean))];
  const lines: string[] = [];
  for (const s of bySubstring) {
    if (!inTfidf.has(`${s.key}\u0000${s.sentence}`)) continue;
    const shared = (s.shared ?? '').trim().toLowerCase();
    if (tableTexts.some((t) => similarity(shared, t) >= IN_TABLE_SIMILARITY)) continue;
    for (const cell of cellsOf.get(s.key) ?? []) {
      const line = `${cell}: ${s.sentence}`;
      if (!lines.includes(line)) lines.push(line);
    }
  }
  return lines;
};
