import type { Embedder } from '../embeddings/types';
import { cosine, fnv1a } from '../embeddings/local';
import type { VectorIndex } from '../vectors/types';
import { greedyMap } from './dpp';
import { encodeToolSequence } from './levenshtein';
import { sampleIndices } from './prng';
import { buildSequenceKernel, levenshteinSimilarity, type SequenceKernel } from './sequence-kernel';

/**
 * Chooses the few-shot solution processes shown to the model for one question.
 *
 * - `dpp`: greedy MAP of the DPP with L = diag(q)·S·diag(q): relevant AND using different tool sequences.
 * - `relevance`: the k examples whose questions are closest to the question.
 * - `diversity`: the example closest to the question, then the examples whose tool sequences differ most from it
 *   (greedy MAP on S conditioned on that first pick; `diversity: 'least-similar'`, the paper's, takes the k − 1
 *   sequences least similar to the first by 1 − normalised Levenshtein). The question still decides, through the first pick.
 * - `random`: k examples drawn with a seeded PRNG (same seed, same draw).
 * - `zero-shot`: none.
 *
 * Quality: q_i = exp(α·cos_i), cos_i the cosine between the question and example i's question. exp keeps
 * q positive for any cosine (a DPP needs q > 0) and makes the trade-off explicit: log det L_Y =
 * 2α·Σ cos_i + log det S_Y, so α weighs relevance against diversity (Chen et al. 2018 use the same form).
 * Default α = 2: a duplicate tool sequence (det S → 0) is always avoided, a partly similar one only when
 * a clearly less relevant alternative exists.
 *
 * When the DPP runs out of items that add volume (every remaining example repeats a chosen tool
 * sequence), the rest of the k slots are filled by quality, so callers always get min(k, n) examples.
 */
export type SelectionMode = 'dpp' | 'relevance' | 'diversity' | 'random' | 'zero-shot';

export const SELECTION_MODES: readonly SelectionMode[] = ['dpp', 'relevance', 'diversity', 'random', 'zero-shot'];

export interface SelectableExample {
  id: string;
  question: string;
  toolSequence: readonly string[];
  benchmark?: string;
}

export interface QualitySelectionInput<T extends SelectableExample> {
  library: readonly T[];
  /** Positive quality per example (same order as library); `diversity` uses it only to pick the first example. */
  quality: ArrayLike<number>;
  /** Diversity-only's rule after the first pick: DPP conditioned on it (default), or the sequences least similar to it (the paper's). */
  diversity?: 'conditioned' | 'least-similar';
  k?: number;
  mode: SelectionMode;
  seed?: number;
  /** A kernel built for this library (e.g. cached); built on the fly when absent. */
  kernel?: SequenceKernel;
}

/** The selection itself, on given quality numbers: pure and synchronous. Returns library indices in pick order. */
export const selectIndicesWithQuality = <T extends SelectableExample>(input: QualitySelectionInput<T>): number[] => {
  const { library, quality, mode } = input;
  const n = library.length;
  const k = Math.max(0, Math.min(input.k ?? 3, n));
  if (k === 0 || mode === 'zero-shot') return [];
  if (mode === 'random') return sampleIndices(n, k, input.seed ?? 1);
  if (mode === 'relevance') return topByQuality(quality, n, k, new Set());

  if (mode === 'diversity' && input.diversity === 'least-similar') return leastSimilarToAnchor(library, quality, k);
  const kernel = input.kernel ?? sequenceKernelFor(library);
  const q = mode === 'diversity' ? anchoredDiversityQuality(quality, n) : quality;
  for (let i = 0; i < n; i++) {
    if (!(q[i] > 0)) throw new Error(`selectIndicesWithQuality: quality must be > 0 (item ${i} has ${q[i]})`);
  }
  const { picks } = greedyMap({ n, k, quality: q, similarityRow: kernel.row, similarityDiagonal: () => 1 });
  if (picks.length < k) picks.push(...topByQuality(q, n, k - picks.length, new Set(picks)));
  return picks;
};

const ANCHOR_WEIGHT = 1e6;
const TIE_BREAK = 1e-6;

/**
 * Quality for diversity-only: the most relevant example gets a weight that makes it the first pick, every other
 * example ≈ 1. After the first pick a candidate's gain d_i² no longer depends on the anchor's weight, so the
 * rest is greedy MAP on S alone conditioned on the anchor; relevance only breaks ties between equally new sequences.
 */
const anchoredDiversityQuality = (quality: ArrayLike<number>, n: number): Float64Array => {
  const anchor = topByQuality(quality, n, 1, new Set())[0];
  const max = Math.max(...Array.from({ length: n }, (_, i) => quality[i]));
  return Float64Array.from({ length: n }, (_, i) => (i === anchor ? ANCHOR_WEIGHT : 1 + (TIE_BREAK * quality[i]) / (max || 1)));
};

/** The paper's diversity-only: the most relevant example, then the k − 1 whose tool sequences are least like its own. */
const leastSimilarToAnchor = <T extends SelectableExample>(library: readonly T[], quality: ArrayLike<number>, k: number): number[] => {
  const n = library.length;
  const anchor = topByQuality(quality, n, 1, new Set())[0];
  const codes = library.map((e) => encodeToolSequence(e.toolSequence));
  const rest = [...Array(n).keys()]
    .filter((i) => i !== anchor)
    .map((i) => ({ i, s: levenshteinSimilarity(codes[anchor], codes[i]) }))
    .sort((a, b) => a.s - b.s || quality[b.i] - quality[a.i] || a.i - b.i);
  return [anchor, ...rest.slice(0, k - 1).map((r) => r.i)];
};

/** The k best items by quality (ties → lower index), skipping `taken`; a linear scan per slot, as k is small. */
const topByQuality = (quality: ArrayLike<number>, n: number, k: number, taken: Set<number>): number[] => {
  const out: number[] = [];
  while (out.length < k) {
    let best = -1;
    for (let i = 0; i < n; i++) if (!taken.has(i) && (best < 0 || quality[i] > quality[best])) best = i;
    if (best < 0) break;
    taken.add(best);
    out.push(best);
  }
  return out;
};

const kernelCache = new WeakMap<readonly SelectableExample[], SequenceKernel>();

/** The tool-sequence kernel of a library, cached per library array (libraries are loaded once). */
export const sequenceKernelFor = (library: readonly SelectableExample[]): SequenceKernel => {
  let k = kernelCache.get(library);
  if (!k) {
    k = buildSequenceKernel(library.map((e) => encodeToolSequence(e.toolSequence)));
    kernelCache.set(library, k);
  }
  return k;
};

export interface SelectExamplesInput<T extends SelectableExample> {
  question: string;
  library: readonly T[];
  k?: number;
  mode?: SelectionMode;
  seed?: number;
  embedder: Embedder;
  /** When given, example embeddings live in namespace `fewshot:<benchmark>` and relevance comes from a query. */
  vectors?: VectorIndex;
  /** Relevance weight α in q = exp(α·cos). Default 2. */
  alpha?: number;
  /** How many nearest examples the vector index returns as DPP candidates (Vectorize allows ≤ 20). Default 20. */
  candidates?: number;
  /** Quality from the cosine: exp(α·cos) (default), or the cosine itself floored to stay positive (the paper's). */
  quality?: 'exp' | 'cosine';
  diversity?: QualitySelectionInput<T>['diversity'];
}

const PAPER_QUALITY_FLOOR = 1e-3;

/**
 * Selects k examples for a question.
 * @example
 * const shots = await selectExamples({ question, library: loadLibrary('mintaka'), embedder: localEmbedder() });
 */
export const selectExamples = async <T extends SelectableExample>(input: SelectExamplesInput<T>): Promise<T[]> => {
  const { library, embedder } = input;
  const mode = input.mode ?? 'dpp';
  const k = input.k ?? 3;
  if (mode === 'zero-shot' || k <= 0 || library.length === 0) return [];
  if (mode === 'random') {
    const picks = selectIndicesWithQuality({ library, quality: new Float64Array(library.length).fill(1), k, mode, seed: input.seed });
    return picks.map((i) => library[i]);
  }
  const alpha = input.alpha ?? 2;
  const [questionVector] = await embedder.embed([input.question]);
  const cosines = input.vectors
    ? await cosinesFromIndex(input.vectors, library, embedder, questionVector, input.candidates ?? 20)
    : cosinesInMemory(await libraryEmbeddings(library, embedder), questionVector);

  // Examples the index did not return are not candidates; the DPP runs over the returned pool.
  const pool: number[] = [];
  cosines.forEach((c, i) => {
    if (c !== undefined) pool.push(i);
  });
  const poolLibrary = pool.map((i) => library[i]);
  const quality = Float64Array.from(pool, (i) =>
    input.quality === 'cosine' ? Math.max(PAPER_QUALITY_FLOOR, cosines[i] as number) : Math.exp(alpha * (cosines[i] as number)),
  );
  const kernel = pool.length === library.length ? sequenceKernelFor(library) : undefined;
  const picks = selectIndicesWithQuality({ library: poolLibrary, quality, k, mode, kernel, diversity: input.diversity });
  return picks.map((p) => library[pool[p]]);
};

const embeddingCache = new WeakMap<readonly SelectableExample[], Map<string, Promise<Float32Array[]>>>();

/** Example-question embeddings, computed once per library and embedder. */
const libraryEmbeddings = (library: readonly SelectableExample[], embedder: Embedder): Promise<Float32Array[]> => {
  const perEmbedder = embeddingCache.get(library) ?? new Map<string, Promise<Float32Array[]>>();
  embeddingCache.set(library, perEmbedder);
  let hit = perEmbedder.get(embedder.name);
  if (!hit) {
    hit = embedder.embed(library.map((e) => e.question));
    // A failed call (network) must not poison the cache.
    hit.catch(() => perEmbedder.delete(embedder.name));
    perEmbedder.set(embedder.name, hit);
  }
  return hit;
};

const cosinesInMemory = (vectors: Float32Array[], q: Float32Array): (number | undefined)[] => vectors.map((v) => cosine(v, q));

/** Stable id of an example in the index; it changes when the question text changes, so edits get re-embedded. */
export const exampleVectorId = (e: SelectableExample): string => `${e.id}#${fnv1a(e.question).toString(36)}`;

export const fewshotNamespace = (library: readonly SelectableExample[]): string =>
  `fewshot:${library[0]?.benchmark || 'default'}`;

const storedIn = new WeakMap<readonly SelectableExample[], WeakMap<VectorIndex, Set<string>>>();

/** Upserts the examples the index lacks; remembered per isolate so later questions skip the `has` round trip. */
const ensureStored = async (
  index: VectorIndex,
  namespace: string,
  library: readonly SelectableExample[],
  ids: string[],
  embedder: Embedder,
): Promise<void> => {
  const perIndex = storedIn.get(library) ?? new WeakMap<VectorIndex, Set<string>>();
  storedIn.set(library, perIndex);
  const done = perIndex.get(index) ?? new Set<string>();
  perIndex.set(index, done);
  if (done.has(embedder.name)) return;
  const present = await index.has(namespace, ids);
  const missing = library.map((_, i) => i).filter((i) => !present.has(ids[i]));
  if (missing.length > 0) {
    const vectors = await embedder.embed(missing.map((i) => library[i].question));
    await index.upsert(
      namespace,
      missing.map((i, m) => ({ id: ids[i], values: vectors[m], metadata: { example: library[i].id, embedder: embedder.name } })),
    );
  }
  done.add(embedder.name);
};

const cosinesFromIndex = async (
  index: VectorIndex,
  library: readonly SelectableExample[],
  embedder: Embedder,
  q: Float32Array,
  candidates: number,
): Promise<(number | undefined)[]> => {
  const namespace = fewshotNamespace(library);
  const ids = library.map(exampleVectorId);
  await ensureStored(index, namespace, library, ids, embedder);
  const position = new Map(ids.map((id, i) => [id, i]));
  const matches = await index.query(namespace, q, Math.min(candidates, library.length));
  const out: (number | undefined)[] = new Array(library.length).fill(undefined);
  let found = 0;
  for (const m of matches) {
    const i = position.get(m.id);
    if (i !== undefined && out[i] === undefined) {
      out[i] = m.score;
      found++;
    }
  }
  // Vectorize is eventually consistent: vectors upserted a moment ago may not be queryable yet.
  // Rather than select from a thin pool, fall back to embedding the library in memory this time.
  if (found < Math.min(candidates, library.length)) {
    return cosinesInMemory(await libraryEmbeddings(library, embedder), q);
  }
  return out;
};
