/** Okapi BM25 over short texts (chunks), for lexical ranking and for fusion with embeddings. */

const STOPWORDS = new Set('a an and are as at be by for from has have in is it its of on or that the to was were what when where which who whom whose why how with did do does'.split(' '));

export const bm25Tokens = (text: string, stopwords: ReadonlySet<string> = STOPWORDS): string[] =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !stopwords.has(t));

export interface Bm25Options {
  k1?: number;
  b?: number;
  /** Words that never count; defaults to a list of English question words and particles. */
  stopwords?: ReadonlySet<string>;
}

/**
 * Scores every document against the query (higher is better; 0 when no query term occurs).
 * @example bm25Scores('danube length', ['The Danube is long.', 'Paris']) // [>0, 0]
 */
export const bm25Scores = (query: string, docs: string[], { k1 = 1.2, b = 0.75, stopwords = STOPWORDS }: Bm25Options = {}): number[] => {
  const terms = [...new Set(bm25Tokens(query, stopwords))];
  const tokenized = docs.map((d) => bm25Tokens(d, stopwords));
  const avgLen = tokenized.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  const tfs = tokenized.map((tokens) => {
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of terms) if (tf.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const n = docs.length;
  return tfs.map((tf, i) => {
    let score = 0;
    const len = tokenized[i].length;
    for (const t of terms) {
      const f = tf.get(t);
      if (!f) continue;
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * len) / Math.max(1, avgLen)));
    }
    return score;
  });
};

/** The documents that share a term with the query, best first (ties keep their order). */
export const rankBm25 = <K>(query: string, docs: { key: K; text: string }[], options: Bm25Options = {}): { key: K; score: number }[] =>
  bm25Scores(query, docs.map((d) => d.text), options)
    .map((score, i) => ({ key: docs[i].key, score }))
    .filter((r) => r.score > 0)
    .sort((x, y) => y.score - x.score);
